//! Numbers as people read them, shared by every report, note and line:
//! digit groups, byte sizes, dollar amounts.

/// `1234567` → `1,234,567` with `sep` between groups of three digits.
pub fn group_digits(n: u64, sep: char) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * sep.len_utf8());
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// `2.4 MiB`-style sizes in binary units: bytes as they are, one decimal
/// above, `gib_decimals` decimals from 1 GiB.
pub fn human_bytes(n: u64, gib_decimals: usize) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{n} B"),
        3 => format!("{v:.gib_decimals$} GiB"),
        _ => format!("{v:.1} {}", UNITS[unit]),
    }
}

/// Two decimals, like a bill; a non-zero amount under a cent is not shown
/// as `$0.00`.
pub fn dollars(x: f64) -> String {
    if x > 0.0 && x < 0.005 {
        "<$0.01".to_string()
    } else {
        format!("${:.2}", x.max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_bytes_and_dollars() {
        assert_eq!(group_digits(0, ','), "0");
        assert_eq!(group_digits(999, ','), "999");
        assert_eq!(group_digits(1_234_567, ','), "1,234,567");
        assert_eq!(group_digits(826_000, '\u{202f}'), "826\u{202f}000");
        assert_eq!(human_bytes(1023, 1), "1023 B");
        assert_eq!(human_bytes(2_516_582, 1), "2.4 MiB");
        assert_eq!(human_bytes(3 << 30, 1), "3.0 GiB");
        assert_eq!(human_bytes((5 << 30) / 2, 2), "2.50 GiB");
        assert_eq!(dollars(0.004), "<$0.01");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(-1.0), "$0.00");
        assert_eq!(dollars(12.345), "$12.35");
    }
}
