//! Replay: formats, gzip, the NASA log, bad lines.

use dupstream_streams::replay::fingerprint;
use dupstream_streams::{
    BadLinePolicy, Error, GroundTruth, ReplayFormat, StreamSpec, collect_keys,
};

use crate::common::{TempFile, drain, nasa_tsv};

fn replay(
    path: &std::path::Path,
    format: ReplayFormat,
    column: Option<&str>,
    header: bool,
) -> StreamSpec {
    StreamSpec::Replay {
        path: path.to_path_buf(),
        format,
        column: column.map(str::to_owned),
        header,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Fail,
        offset: 0,
        limit: None,
    }
}

fn with_policy(mut spec: StreamSpec, policy: BadLinePolicy) -> StreamSpec {
    if let StreamSpec::Replay { bad_lines, .. } = &mut spec {
        *bad_lines = policy;
    }
    spec
}

#[test]
fn nasa_log_has_30969_requests() {
    let Some(path) = nasa_tsv() else { return };
    let spec = replay(&path, ReplayFormat::Tsv, Some("url"), true);
    spec.validate().unwrap();
    assert_eq!(spec.declared_len(), None);
    let keys = collect_keys(&spec).unwrap();
    assert_eq!(keys.len(), 30_969);
    // First request's URL (line 2 of the file).
    assert_eq!(keys[0], fingerprint(b"/images/launch-logo.gif", 0));
    let t = GroundTruth::compute(&spec).unwrap();
    let s = t.stats();
    assert_eq!(s.n, 30_969);
    // `cut -f5 | tail -n +2 | sort -u | wc -l` on the file gives 2088 distinct URLs.
    assert_eq!(s.distinct, 2088);
    assert_eq!(s.gap_sample_rate, 1.0);
    assert_eq!(s.gap_histogram.iter().sum::<u64>(), 30_969 - 2088);
    assert_eq!(s.skipped_lines, 0);
    // Column by index gives the same keys.
    assert_eq!(
        collect_keys(&replay(&path, ReplayFormat::Tsv, Some("4"), true)).unwrap(),
        keys
    );
}

#[test]
fn nasa_log_gzip_gives_the_same_keys() {
    let Some(path) = nasa_tsv() else { return };
    let gz = TempFile::gzip("nasa.tsv.bin", &std::fs::read(&path).unwrap());
    let a = collect_keys(&replay(&path, ReplayFormat::Tsv, Some("url"), true)).unwrap();
    let b = collect_keys(&replay(gz.path(), ReplayFormat::Tsv, Some("url"), true)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn gzip_and_plain_give_the_same_keys() {
    let mut text = String::new();
    for i in 0..20_000u32 {
        text += &format!("http://example.org/page/{}\r\n", i % 3001);
    }
    let plain = TempFile::new("urls.txt", text.as_bytes());
    // Named .txt although compressed: detection is by magic bytes.
    let gz = TempFile::gzip("urls-gz.txt", text.as_bytes());
    let a = collect_keys(&replay(plain.path(), ReplayFormat::Lines, None, false)).unwrap();
    let b = drain(
        &mut *replay(gz.path(), ReplayFormat::Lines, None, false)
            .open()
            .unwrap(),
        333,
    )
    .unwrap();
    assert_eq!(a.len(), 20_000);
    assert_eq!(a, b);
    assert_eq!(a[5], fingerprint(b"http://example.org/page/5", 0)); // "\r\n" stripped
    // Concatenated gzip members read as one stream.
    let mut two = std::fs::read(gz.path()).unwrap();
    two.extend_from_slice(&two.clone());
    let gz2 = TempFile::new("two.gz", &two);
    assert_eq!(
        collect_keys(&replay(gz2.path(), ReplayFormat::Lines, None, false))
            .unwrap()
            .len(),
        40_000
    );
}

#[test]
fn fingerprint_seed_changes_keys() {
    let f = TempFile::new("seed.txt", b"a\nb\n");
    let a = collect_keys(&replay(f.path(), ReplayFormat::Lines, None, false)).unwrap();
    let mut spec = replay(f.path(), ReplayFormat::Lines, None, false);
    if let StreamSpec::Replay {
        fingerprint_seed, ..
    } = &mut spec
    {
        *fingerprint_seed = 99;
    }
    let b = collect_keys(&spec).unwrap();
    assert_eq!(b, vec![fingerprint(b"a", 99), fingerprint(b"b", 99)]);
    assert_ne!(a, b);
}

#[test]
fn bad_line_policy_fail_names_file_line_and_column() {
    let f = TempFile::new("bad.tsv", b"host\turl\nh1\t/a\nh2\n\th3\t/b\nh4\t\n");
    let spec = replay(f.path(), ReplayFormat::Tsv, Some("url"), true);
    let err = collect_keys(&spec).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Malformed { line: 3, .. }), "{msg}");
    assert!(msg.contains(&format!("{}:3:", f.path().display())), "{msg}");
    assert!(msg.contains("column `url`"), "{msg}");
    assert!(!msg.contains('\n'));
}

#[test]
fn bad_line_policy_skip_counts_and_continues() {
    let f = TempFile::new("bad.tsv", b"host\turl\nh1\t/a\nh2\nh3\t/b\nh4\t\nh5\t/a\n");
    let spec = with_policy(
        replay(f.path(), ReplayFormat::Tsv, Some("url"), true),
        BadLinePolicy::Skip,
    );
    let keys = collect_keys(&spec).unwrap();
    assert_eq!(
        keys,
        vec![
            fingerprint(b"/a", 0),
            fingerprint(b"/b", 0),
            fingerprint(b"/a", 0)
        ]
    );
    let t = GroundTruth::compute(&spec).unwrap();
    assert_eq!(t.stats().skipped_lines, 2); // too few fields; empty url
    assert_eq!(t.stats().first_skipped_lines, vec![3, 5]); // the header is line 1
    assert_eq!((t.len(), t.stats().distinct), (3, 2));
    assert!(!t.is_duplicate(0) && !t.is_duplicate(1) && t.is_duplicate(2));
}

#[test]
fn csv_with_quotes_and_named_column() {
    let f = TempFile::new(
        "q.csv",
        b"id,url,n\n1,\"/a,b\",2\n2,/c,3\n3,\"/x\"\"y\",4\n4,\"/open\n",
    );
    let spec = with_policy(
        replay(f.path(), ReplayFormat::Csv, Some("url"), true),
        BadLinePolicy::Skip,
    );
    let t = GroundTruth::compute(&spec).unwrap();
    assert_eq!(t.stats().skipped_lines, 1); // unterminated quote on line 5
    assert_eq!(t.stats().first_skipped_lines, vec![5]);
    let keys = collect_keys(&spec).unwrap();
    assert_eq!(
        keys,
        vec![
            fingerprint(b"/a,b", 0),
            fingerprint(b"/c", 0),
            fingerprint(b"/x\"y", 0)
        ]
    );
    let err = collect_keys(&replay(f.path(), ReplayFormat::Csv, Some("url"), true)).unwrap_err();
    assert!(
        err.to_string().contains(":5: field 1: unterminated quote"),
        "{err}"
    );
}

#[test]
fn common_log_format_uses_the_request_url() {
    let log = concat!(
        "in24.inetnebr.com - - [01/Aug/1995:00:00:01 -0400] \"GET /shuttle/a.txt HTTP/1.0\" 200 1839\n",
        "uplherc.upl.com - - [01/Aug/1995:00:00:07 -0400] \"GET / HTTP/1.0\" 304 0\n",
        "broken line without request\n",
        "ix.example - - [01/Aug/1995:00:00:12 -0400] \"GET /shuttle/a.txt\" 200 1839\n",
    );
    let f = TempFile::gzip("log.gz", log.as_bytes());
    let spec = with_policy(
        replay(f.path(), ReplayFormat::Clf, None, false),
        BadLinePolicy::Skip,
    );
    let keys = collect_keys(&spec).unwrap();
    assert_eq!(
        keys,
        vec![
            fingerprint(b"/shuttle/a.txt", 0),
            fingerprint(b"/", 0),
            fingerprint(b"/shuttle/a.txt", 0)
        ]
    );
    let err = collect_keys(&replay(f.path(), ReplayFormat::Clf, None, false)).unwrap_err();
    assert!(
        err.to_string()
            .ends_with(":3: not a Common Log Format line: no quoted request"),
        "{err}"
    );
}

#[test]
fn limit_stops_early() {
    let Some(path) = nasa_tsv() else { return };
    let mut spec = replay(&path, ReplayFormat::Tsv, Some("url"), true);
    if let StreamSpec::Replay { limit, .. } = &mut spec {
        *limit = Some(1000);
    }
    assert_eq!(spec.declared_len(), Some(1000));
    assert_eq!(GroundTruth::compute(&spec).unwrap().len(), 1000);
}

#[test]
fn header_problems_are_reported_by_validate() {
    let f = TempFile::new("h.tsv", b"host\turl\nh\t/a\n");
    let err = replay(f.path(), ReplayFormat::Tsv, Some("uri"), true)
        .validate()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("column `uri` not in header (columns: host, url)"),
        "{err}"
    );
    let err = replay(f.path(), ReplayFormat::Tsv, Some("url"), false)
        .validate()
        .unwrap_err();
    assert!(err.to_string().contains("needs `header = true`"), "{err}");
    let err = replay(f.path(), ReplayFormat::Lines, Some("url"), false)
        .validate()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("only `tsv` and `csv` have columns"),
        "{err}"
    );
    let missing = f.path().with_extension("missing");
    let err = replay(&missing, ReplayFormat::Lines, None, false)
        .validate()
        .unwrap_err();
    assert!(
        matches!(err, Error::Io { .. }) && err.to_string().contains("h.missing"),
        "{err}"
    );
}

#[test]
fn truncated_gzip_is_an_error_with_a_line() {
    let text: String = (0..50_000).map(|i| format!("/u/{i}\n")).collect();
    let gz = TempFile::gzip("full.gz", text.as_bytes());
    let bytes = std::fs::read(gz.path()).unwrap();
    let cut = TempFile::new("cut.gz", &bytes[..bytes.len() / 2]);
    let err = collect_keys(&replay(cut.path(), ReplayFormat::Lines, None, false)).unwrap_err();
    assert!(matches!(err, Error::Io { line: Some(_), .. }), "{err}");
}

#[test]
fn skipped_line_numbers_keep_only_the_first_few() {
    let text: String = (1..=20)
        .map(|i| {
            if i % 2 == 0 {
                "\n".to_string()
            } else {
                format!("k{i}\n")
            }
        })
        .collect();
    let f = TempFile::new("many.txt", text.as_bytes());
    let spec = with_policy(
        replay(f.path(), ReplayFormat::Lines, None, false),
        BadLinePolicy::Skip,
    );
    let t = GroundTruth::compute(&spec).unwrap();
    assert_eq!(t.stats().skipped_lines, 10);
    // SKIPPED_LINES_KEPT = 5: the first five, not the last.
    assert_eq!(t.stats().first_skipped_lines, vec![2, 4, 6, 8, 10]);
}

fn window(spec: &StreamSpec, off: u64, lim: Option<u64>) -> StreamSpec {
    let mut spec = spec.clone();
    if let StreamSpec::Replay { offset, limit, .. } = &mut spec {
        *offset = off;
        *limit = lim;
    }
    spec
}

#[test]
fn offset_and_limit_cut_windows_of_the_keys() {
    // Ten keys a..j, a bad line (no second field) after the third: under `skip` it is not a
    // key, so it shifts nothing.
    let f = TempFile::new(
        "window.tsv",
        b"h\tk\n1\ta\n2\tb\n3\tc\nbad\n4\td\n5\te\n6\tf\n7\tg\n8\th\n9\ti\n10\tj\n",
    );
    let base = with_policy(
        replay(f.path(), ReplayFormat::Tsv, Some("k"), true),
        BadLinePolicy::Skip,
    );
    let fp = |k: &str| fingerprint(k.as_bytes(), 0);
    let want = |s: &str| s.split(' ').map(fp).collect::<Vec<_>>();
    assert_eq!(collect_keys(&base).unwrap(), want("a b c d e f g h i j"));
    for (off, lim, expected) in [
        (0, Some(3), "a b c"),
        (3, Some(3), "d e f"),
        (3, None, "d e f g h i j"),
        (8, Some(5), "i j"),
        (9, Some(1), "j"),
        (2, Some(2), "c d"),
    ] {
        let spec = window(&base, off, lim);
        spec.validate().unwrap();
        assert_eq!(
            collect_keys(&spec).unwrap(),
            want(expected),
            "offset {off} limit {lim:?}"
        );
        let truth = GroundTruth::compute(&spec).unwrap();
        assert_eq!(truth.len(), want(expected).len() as u64);
    }
    // Two halves make the whole.
    let mut halves = collect_keys(&window(&base, 0, Some(5))).unwrap();
    halves.extend(collect_keys(&window(&base, 5, Some(5))).unwrap());
    assert_eq!(halves, collect_keys(&base).unwrap());
    // Described and labelled.
    assert!(
        window(&base, 3, Some(2))
            .describe()
            .ends_with(" offset=3 limit=2")
    );
    assert!(!base.describe().contains("offset"));
}

#[test]
fn an_offset_past_the_end_is_an_error_when_read() {
    let f = TempFile::new("short.txt", b"a\nb\nc\n");
    let base = replay(f.path(), ReplayFormat::Lines, None, false);
    for off in [3, 4, 1000] {
        let spec = window(&base, off, Some(2));
        // Checked without reading the file: the error comes when the stream is read (the
        // ground truth, the first thing a run does).
        spec.validate().unwrap();
        let err = collect_keys(&spec).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "`offset` = {off} leaves no key: the file ends after 3 keys"
            )),
            "{err}"
        );
        let err = GroundTruth::compute(&spec).unwrap_err().to_string();
        assert!(err.contains("leaves no key"), "{err}");
    }
    assert_eq!(collect_keys(&window(&base, 2, None)).unwrap().len(), 1);
}

#[test]
fn offset_counts_keys_after_the_nasa_header() {
    let Some(path) = nasa_tsv() else { return };
    let base = replay(&path, ReplayFormat::Tsv, Some("url"), true);
    let all = collect_keys(&base).unwrap();
    let tail = collect_keys(&window(&base, 30_000, None)).unwrap();
    assert_eq!(tail, all[30_000..]);
    let mid = collect_keys(&window(&base, 15_000, Some(100))).unwrap();
    assert_eq!(mid, all[15_000..15_100]);
}
