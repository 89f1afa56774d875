fn main() {
    std::process::exit(olmlint::cli::main());
}
