//! Prints the turn digest a first Stop would build from a transcript, read
//! whole: `cargo run --example digest -- <transcript.jsonl> [cwd]`. For
//! looking at what capture sees in a real session.

// An example prints its result.
#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: digest <transcript.jsonl> [cwd]");
        std::process::exit(2);
    };
    let here = args.get(2).map(std::path::PathBuf::from);
    // A cursor at 0 with an empty head: resume from the start, every turn.
    let cursor = cairn::capture::pass::Cursor {
        transcript: path.into(),
        ..Default::default()
    };
    let pass = cairn::capture::pass::run(
        std::path::Path::new(path),
        Some(&cursor),
        "",
        here.as_deref(),
    )
    .expect("readable transcript");
    println!(
        "{}",
        serde_json::to_string_pretty(&pass.turns).expect("serialisable")
    );
}
