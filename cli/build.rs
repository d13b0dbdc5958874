//! `rmq-rebalance --version` names the commit it was built from when built in a git checkout
//! (a release and a bug report then say exactly which code ran); elsewhere the version alone.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets the version");
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    let long = match &commit {
        Some(commit) => format!("{version} (commit {commit})"),
        None => version,
    };
    println!("cargo:rustc-env=RMQ_LONG_VERSION={long}");
    // `watch` exports it in `rmq_rebalance_build_info`; empty outside a checkout.
    println!("cargo:rustc-env=RMQ_COMMIT={}", commit.unwrap_or_default());
    // Build again when HEAD moves: a checkout (HEAD) or a commit on the branch (refs).
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/refs");
        println!("cargo:rerun-if-changed={dir}/packed-refs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
