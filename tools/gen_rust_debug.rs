// For every char, does Rust's `{:?}` of a str escape it (a) as the first char, (b) after "a"?
fn main() {
    let mut first = Vec::new();
    let mut later = Vec::new();
    for cp in 0u32..=0x10FFFF {
        let Some(c) = char::from_u32(cp) else { continue };
        let s0 = format!("{:?}", c.to_string());
        if s0 != format!("\"{}\"", c) { first.push(cp); }
        let s1 = format!("{:?}", format!("a{}", c));
        if s1 != format!("\"a{}\"", c) { later.push(cp); }
    }
    let ranges = |v: &Vec<u32>| {
        let mut out: Vec<(u32, u32)> = Vec::new();
        for &x in v { match out.last_mut() { Some(r) if r.1 + 1 == x => r.1 = x, _ => out.push((x, x)) } }
        out
    };
    println!("{}", rustc_version());
    println!("FIRST {:?}", ranges(&first));
    println!("LATER {:?}", ranges(&later));
}
fn rustc_version() -> &'static str { option_env!("RUSTC_VERSION").unwrap_or("?") }
