//! Progress on stderr for the long-running commands (stdout stays the report; indicatif draws
//! nothing when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `len` units named `unit`; hidden for short runs, where it would only flicker.
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit}, {{eta}} left")).expect("a valid template"));
    if len < 20 {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}
