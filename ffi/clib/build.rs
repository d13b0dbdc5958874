//! Links the shared library with a version script that exports `rmq_*` only, under one version
//! node, and gives it a soname so programs record the ABI they were built against.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets the version");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/exports.map");
        // Before 1.0 a minor release may break the ABI, so the soname carries major.minor.
        let soname = if major == "0" { format!("0.{minor}") } else { major };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librocketmq_rebalance.so.{soname}");
    }
    println!("cargo:rerun-if-changed=exports.map");
}
