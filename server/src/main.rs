//! `passback`: the command line of the PassbackAI renderer.
#![forbid(unsafe_code)]

mod cli;

fn main() {
    // Never a backtrace for a user: one line and a distinct exit code.
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "passback: internal error{location}; please report it with the input that caused it"
        );
    }));
    let code = match cli::run(std::env::args_os().skip(1)) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("passback: {}", passback_engine::terminal_safe(&message));
            2
        }
    };
    std::process::exit(code);
}
