//! Memory sizes with units, as written in experiment files.
//!
//! Bytes are binary, as in the papers ("64 MB" = 64 × 2^20 bytes = 2^29 bits): `B`, `KB`,
//! `MB`, `GB`, `TB` and the explicit `KiB`, `MiB`, `GiB`, `TiB`. Bits are decimal with SI
//! prefixes (`kbit` = 10^3 bits, `Mbit` = 10^6 bits, as the QHT paper's "8 Mbit" = 8·10^6 bits)
//! or binary with IEC prefixes (`Kibit`, `Mibit`, `Gibit`). The number may be an integer,
//! a decimal or exponent form (`8e6`), or a power (`2^29`). A bare number is a count of bits.

/// Parses a memory size into bits. The error is a short phrase suitable for "bad unit: …".
pub fn parse_bits(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .char_indices()
        .find(|&(_, c)| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = (t[..split].trim(), t[split..].trim());
    // An exponent marker directly followed by letters (e.g. "8eMB") is caught by the number parse.
    let value =
        parse_number(num).ok_or_else(|| format!("`{text}` does not start with a number"))?;
    let factor: f64 = match unit {
        "" | "b" | "bit" | "bits" => 1.0,
        "kbit" | "kbits" | "Kbit" | "Kbits" => 1e3,
        "Mbit" | "Mbits" => 1e6,
        "Gbit" | "Gbits" => 1e9,
        "Kibit" | "Kibits" => 1024.0,
        "Mibit" | "Mibits" => 1_048_576.0,
        "Gibit" | "Gibits" => 1_073_741_824.0,
        "B" | "byte" | "bytes" => 8.0,
        "KB" | "KiB" | "kB" => 8.0 * 1024.0,
        "MB" | "MiB" => 8.0 * 1_048_576.0,
        "GB" | "GiB" => 8.0 * 1_073_741_824.0,
        "TB" | "TiB" => 8.0 * 1_099_511_627_776.0,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}` (use bits, kbit, Mbit, Gbit, Kibit, Mibit, Gibit, B, KB, MB, GB, TB)"
            ));
        }
    };
    let bits = value * factor;
    if !bits.is_finite() || bits < 1.0 || bits > 2f64.powi(62) {
        return Err(format!("`{text}` is out of range (1 bit to 2^62 bits)"));
    }
    if bits.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bits"));
    }
    Ok(bits as u64)
}

fn parse_number(s: &str) -> Option<f64> {
    if let Some((base, exp)) = s.split_once('^') {
        let b: f64 = base.trim().parse().ok()?;
        let e: i32 = exp.trim().parse().ok()?;
        return Some(b.powi(e));
    }
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    cleaned.parse().ok()
}

/// Renders a bit count the way the papers write it: a whole number of MB / KB when it is one,
/// else bits.
pub fn format_bits(bits: u64) -> String {
    const MB: u64 = 8 << 20;
    const KB: u64 = 8 << 10;
    if bits >= MB && bits.is_multiple_of(MB) {
        format!("{}MB", bits / MB)
    } else if bits >= KB && bits.is_multiple_of(KB) {
        format!("{}KB", bits / KB)
    } else {
        format!("{bits} bits")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_the_issue_names() {
        assert_eq!(parse_bits("64MB"), Ok(1 << 29));
        assert_eq!(parse_bits("128 MB"), Ok(1_073_741_824));
        assert_eq!(parse_bits("2^29 bits"), Ok(1 << 29));
        assert_eq!(parse_bits("8e6 bits"), Ok(8_000_000));
        assert_eq!(parse_bits("1 Mbit"), Ok(1_000_000));
        assert_eq!(parse_bits("16384"), Ok(16384));
        assert_eq!(parse_bits("4_294_967_296 bits"), Ok(1 << 32));
        assert_eq!(parse_bits("1 Mibit"), Ok(1 << 20));
    }

    #[test]
    fn rejects_bad_units() {
        assert!(parse_bits("64 MiBs").is_err());
        assert!(parse_bits("MB").is_err());
        assert!(parse_bits("0.5 bits").is_err());
        assert!(parse_bits("-3MB").is_err());
        assert!(
            parse_bits("64 parsecs")
                .unwrap_err()
                .contains("unknown unit")
        );
    }

    #[test]
    fn formats_round_trip() {
        for s in ["64MB", "512MB", "16KB"] {
            assert_eq!(format_bits(parse_bits(s).unwrap()), s);
        }
        assert_eq!(format_bits(8_000_000), "8000000 bits");
    }
}
