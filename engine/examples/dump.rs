fn main() {
    let src = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let out = passback_engine::render(&src, &passback_engine::Options::default());
    println!("{}", out.html);
    for d in out.diagnostics {
        println!("{d:?}");
    }
}
