//! Test only (feature `panic-probe`): a JNI entry point that panics inside the boundary, for
//! `PanicCrossingTest` (a test class, not in the jar). Never in a shipped build.

use jni::objects::{JClass, JString};
use jni::sys::jstring;
use jni::JNIEnv;

use crate::errors::boundary;
use crate::marshal::string;

/// `String PanicProbe.panic(String message)` (test scope): panics with `message`.
#[no_mangle]
pub extern "system" fn Java_io_github_rocketmqrebalance_PanicProbe_panic<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, message: JString<'l>) -> jstring {
    boundary(&mut env, std::ptr::null_mut(), |env| {
        let message = string(env, &message)?;
        panic!("{message}")
    })
}
