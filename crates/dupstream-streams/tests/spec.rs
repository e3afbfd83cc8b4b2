//! StreamSpec: parsing, validation, scaling, description.

use dupstream_streams::{BadLinePolicy, Error, GroundTruth, Oracle, ReplayFormat, StreamSpec};

fn parse(toml_text: &str) -> Result<StreamSpec, toml::de::Error> {
    toml::from_str(toml_text)
}

#[test]
fn toml_specs_parse_with_defaults() {
    assert_eq!(
        parse("kind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.15\nseed = 3").unwrap(),
        StreamSpec::Uniform {
            n: 1000,
            universe: None,
            distinct_fraction: Some(0.15),
            seed: 3
        }
    );
    assert_eq!(
        parse("kind = \"deng_b_model\"\nb = 0.7\nl = 6\nu = 1e3").unwrap(),
        StreamSpec::DengBModel {
            n: 1 << 24,
            b: 0.7,
            l: 6,
            v: 0.1,
            u: 1000.0,
            seed: 0,
            heavy_first: false
        }
    );
    assert_eq!(
        parse("kind = \"deng_poisson\"\nlambda = 0.5\nu = 1e6").unwrap(),
        StreamSpec::deng_fig6_poisson(0.5, 1e6, 0)
    );
    assert_eq!(
        parse("kind = \"zipf\"\nn = 10\nuniverse = 5\ns = 1.1").unwrap(),
        StreamSpec::Zipf {
            n: 10,
            universe: 5,
            s: 1.1,
            seed: 0
        }
    );
    assert_eq!(
        parse("kind = \"replay\"\npath = \"x.tsv.gz\"\nformat = \"tsv\"\ncolumn = \"url\"\nheader = true\nbad_lines = \"skip\"").unwrap(),
        StreamSpec::Replay {
            path: "x.tsv.gz".into(),
            format: ReplayFormat::Tsv,
            column: Some("url".into()),
            header: true,
            fingerprint_seed: 0,
            bad_lines: BadLinePolicy::Skip,
            offset: 0,
            limit: None,
        }
    );
}

#[test]
fn unknown_fields_and_kinds_are_rejected() {
    assert!(parse("kind = \"uniform\"\nn = 10\nuniverse = 5\nunivers = 6").is_err());
    assert!(parse("kind = \"gaussian\"\nn = 10").is_err());
}

#[test]
fn specs_round_trip_through_toml() {
    for spec in [
        StreamSpec::deng_fig6_b_model(0.7, 1e4, 2),
        StreamSpec::Uniform {
            n: 5,
            universe: Some(3),
            distinct_fraction: None,
            seed: 1,
        },
    ] {
        let text = toml::to_string(&spec).unwrap();
        assert_eq!(parse(&text).unwrap(), spec, "{text}");
    }
}

fn invalid(spec: StreamSpec, field: &str, needle: &str) {
    let err = spec.validate().unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(&err, Error::InvalidSpec { field: f, .. } if *f == field),
        "{msg}"
    );
    assert!(msg.contains(needle), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
    assert!(spec.open().is_err());
    assert!(GroundTruth::compute(&spec).is_err());
}

#[test]
fn invalid_specs_are_rejected_with_one_clear_line() {
    let uni = |universe, distinct_fraction| StreamSpec::Uniform {
        n: 1000,
        universe,
        distinct_fraction,
        seed: 0,
    };
    invalid(uni(Some(10), Some(0.5)), "universe", "not both");
    invalid(
        uni(None, None),
        "universe",
        "give `universe` or `distinct_fraction`",
    );
    invalid(uni(Some(0), None), "universe", "at least 1");
    invalid(uni(None, Some(1.0)), "distinct_fraction", "(0, 1)");
    invalid(uni(None, Some(0.0001)), "distinct_fraction", "no universe");
    invalid(
        StreamSpec::Uniform {
            n: 0,
            universe: Some(5),
            distinct_fraction: None,
            seed: 0,
        },
        "n",
        "10^10",
    );
    invalid(
        StreamSpec::Uniform {
            n: 20_000_000_000,
            universe: Some(5),
            distinct_fraction: None,
            seed: 0,
        },
        "n",
        "10^10",
    );
    invalid(
        StreamSpec::Zipf {
            n: 10,
            universe: 0,
            s: 1.0,
            seed: 0,
        },
        "universe",
        "2^53",
    );
    invalid(
        StreamSpec::Zipf {
            n: 10,
            universe: 10,
            s: f64::NAN,
            seed: 0,
        },
        "s",
        ">= 0",
    );
    let drift = |universe, period, shift| StreamSpec::ZipfDrift {
        n: 10,
        universe,
        s: 1.0,
        period,
        shift,
        seed: 0,
    };
    invalid(drift(0, 1, 0), "universe", "2^53");
    invalid(drift(10, 0, 1), "period", "at least 1");
    invalid(drift(10, 5, 10), "shift", "less than U = 10");
    drift(10, 5, 9).validate().unwrap();
    invalid(
        StreamSpec::DengPoisson {
            n: 10,
            lambda: 1.5,
            u: 1.0,
            seed: 0,
        },
        "lambda",
        "(0, 1]",
    );
    invalid(
        StreamSpec::DengPoisson {
            n: 10,
            lambda: 0.5,
            u: 0.0,
            seed: 0,
        },
        "u",
        "> 0",
    );
    let bm = |b, l, v| StreamSpec::DengBModel {
        n: 1 << 20,
        b,
        l,
        v,
        u: 1e3,
        seed: 0,
        heavy_first: false,
    };
    // The paper's examples: v = 0.1, b = 0.7 allows l ≤ 6; v = 0.5, b = 0.8 allows l ≤ 1.
    bm(0.7, 6, 0.1).validate().unwrap();
    invalid(bm(0.7, 7, 0.1), "l", "l ≤ ln(v)/ln(1/(2b)) = 6.843");
    bm(0.8, 1, 0.5).validate().unwrap();
    invalid(bm(0.8, 2, 0.5), "l", "ln(v)/ln(1/(2b))");
    bm(0.5, 20, 0.9).validate().unwrap(); // b = 0.5: no constraint but 2^l ≤ n
    invalid(bm(0.5, 21, 0.9), "l", "2^l must not exceed n");
    invalid(bm(0.4, 1, 0.1), "b", "b ≥ 0.5");
    invalid(bm(0.7, 1, 0.0), "v", "(0, 1]");
}

#[test]
fn fig6_settings_are_valid() {
    for b in [0.5, 0.7] {
        for u in [1e3, 1e4, 1e5, 1e6] {
            let spec = StreamSpec::deng_fig6_b_model(b, u, 1);
            spec.validate().unwrap();
            assert_eq!(spec.declared_len(), Some(1 << 24));
            assert_eq!(GroundTruth::planned_oracle(&spec), Oracle::HashSet);
        }
    }
    StreamSpec::deng_fig6_poisson(0.5, 1e6, 1)
        .validate()
        .unwrap();
}

#[test]
fn scaled_keeps_the_distinct_fraction() {
    let s = StreamSpec::Uniform {
        n: 1_000_000_000,
        universe: None,
        distinct_fraction: Some(0.15),
        seed: 1,
    };
    let t = s.scaled(100);
    assert_eq!(t.declared_len(), Some(10_000_000));
    let ratio = |s: &StreamSpec| s.declared_len().unwrap() as f64 / s.universe().unwrap() as f64;
    assert!((ratio(&s) - ratio(&t)).abs() < 1e-6);
    let z = StreamSpec::Zipf {
        n: 1000,
        universe: 500,
        s: 1.0,
        seed: 0,
    }
    .scaled(10);
    assert_eq!((z.declared_len(), z.universe()), (Some(100), Some(50)));
    // A drifting Zipf stream: n, U and the period divided, the shift kept.
    let zd = StreamSpec::ZipfDrift {
        n: 1000,
        universe: 500,
        s: 1.0,
        period: 30,
        shift: 7,
        seed: 2,
    };
    assert_eq!(
        zd.scaled(10),
        StreamSpec::ZipfDrift {
            n: 100,
            universe: 50,
            s: 1.0,
            period: 3,
            shift: 7,
            seed: 2,
        }
    );
    assert_eq!(
        zd.describe(),
        "zipf_drift n=1000 U=500 s=1 period=30 shift=7 seed=2"
    );
    let parsed: StreamSpec = toml::from_str(
        "kind = \"zipf_drift\"\nn = 1000\nuniverse = 500\ns = 1.0\nperiod = 30\nshift = 7\nseed = 2",
    )
    .unwrap();
    assert_eq!(parsed, zd);
    assert_eq!(parsed.kind(), "zipf_drift");
    let d = StreamSpec::deng_fig6_b_model(0.7, 1e4, 0).scaled(16);
    assert_eq!(
        d,
        StreamSpec::DengBModel {
            n: 1 << 20,
            b: 0.7,
            l: 6,
            v: 0.1,
            u: 625.0,
            seed: 0,
            heavy_first: false
        }
    );
    let r = StreamSpec::Replay {
        path: "f".into(),
        format: ReplayFormat::Lines,
        column: None,
        header: false,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Fail,
        offset: 0,
        limit: None,
    };
    assert_eq!(r.scaled(10), r);
    assert_eq!(s.scaled(1), s);
}

#[test]
fn describe_is_one_informative_line() {
    let s = StreamSpec::Uniform {
        n: 1_000_000_000,
        universe: None,
        distinct_fraction: Some(0.15),
        seed: 1,
    };
    let d = s.describe();
    assert!(
        d.starts_with("uniform n=1000000000 U=") && d.ends_with("(d=0.15) seed=1"),
        "{d}"
    );
    assert_eq!(
        StreamSpec::deng_fig6_b_model(0.7, 1e3, 2).describe(),
        "deng_b_model n=16777216 b=0.7 l=6 v=0.1 u=1000 seed=2"
    );
    assert_eq!(
        StreamSpec::deng_fig6_poisson(0.25, 1e6, 2).describe(),
        "deng_poisson n=16777216 lambda=0.25 u=1000000 seed=2"
    );
}

#[test]
fn oracle_choice_and_memory_estimates_meet_the_targets() {
    const GB: u64 = 1_000_000_000;
    let uni = |d| StreamSpec::Uniform {
        n: 1_000_000_000,
        universe: None,
        distinct_fraction: Some(d),
        seed: 0,
    };
    for (d, limit) in [(0.15, 2 * GB), (0.6, 4 * GB), (0.9, 4 * GB)] {
        let spec = uni(d);
        assert_eq!(GroundTruth::planned_oracle(&spec), Oracle::Bitmap);
        let est = GroundTruth::heap_bytes_estimate(&spec);
        assert!(est <= limit, "d={d}: {est} bytes");
    }
    // d = 0.9: 4.7e9-bit bitmap (590 MB) + 125 MB labels + gap table.
    let est = GroundTruth::heap_bytes_estimate(&uni(0.9));
    assert!((700_000_000..900_000_000).contains(&est), "{est}");
    // A universe far larger than the stream uses the hash set.
    let sparse = StreamSpec::Uniform {
        n: 1000,
        universe: Some(1 << 40),
        distinct_fraction: None,
        seed: 0,
    };
    assert_eq!(GroundTruth::planned_oracle(&sparse), Oracle::HashSet);
    assert!(GroundTruth::heap_bytes_estimate(&sparse) < 200_000_000);
}
