fn main() {
    eprintln!("usage: cargo xtask <command>");
    std::process::exit(2);
}
