//! `cargo xtask bench`.

pub fn run(_args: &[String]) -> Result<(), String> {
    Err("not written yet".into())
}
