//! Hostile inputs for every reader, generated from a fixed seed: random bytes, and valid files
//! of every format mutated at the byte, line and token level (huge and negative numbers, BOMs,
//! other delimiters, quotes, line breaks, repeated headers). Shared by the `fuzz` example
//! (millions of cases) and the `fuzz` integration test (a few thousand in CI); the
//! generator and mutations also drive the binary in `compclust-cli`'s `fuzz_commands` test.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use compclust::data::{
    ComparisonKind, InputFormat, ItemIndex, OutputFormat, ReadOptions, read_comparisons,
    read_comparisons_from, read_items, read_labels, read_membership, write_comparisons_to,
};

/// xorshift64*: small, fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// Valid files of every format (the seeds that mutations start from).
pub const SEEDS: &[&str] = &[
    "anchor,near,far\na,b,c\nb,a,c\nc,d,a\nd,c,b\n",
    "a,b,c,d\nx,y,x,z\ny,z,x,w\nw,x,y,z\n",
    "center,x,y\na,b,c\nb,c,d\n",
    "odd,x,y\na,b,c\nd,a,b\n",
    "a,b,answer\na0,a1,1\na0,a2,0\na1,a2,yes\na2,a3,2\n",
    "0,1,2\n1,2,3\n2,3,0\n",
    "0,1,2,3\n1,2,3,0\n",
    "0,1,2,true\n1,2,3,false\n2,0,3,1\n",
    "0,1,2,1\n1,2,3,-1\n2,3,0,0\n3,0,1,2\n",
    "id,head,winner,loser,score\n0,0,1,2,1\n1,1,2,3,0\n",
    "survey_round,chosen_center,triplet_object_1,triplet_object_2,triplet_object_3,response_time\n1,2,1,2,3,0.5\n1,4,4,5,6,1.0\n",
    "1,2,3\n4,5,6\n2,5,7\n",
    "anchor\tnear\tfar\na\tb\tc\nb\tc\ta\n",
    "anchor;near;far\n\"a;1\";b;c\nb;c;\"a;1\"\n",
    "[{\"HIT_screens\":[{\"probe\":\"images/p.jpg\",\"images\":[\"images/a.jpg\",\"images/b.jpg\",\"images/c.jpg\"],\"near_answer\":[\"images/a.jpg\"]}]}]",
    "item,cluster\na,0\nb,1\nc,Drama\n",
    "item,cluster\na,0\na,1\nb,\nc,2\n",
    "a\nb\nc\nd\n",
];

/// Tokens that broke or could break a reader: huge, negative and odd numbers, keywords,
/// headers, quotes, BOMs and control characters.
pub const TOKENS: &[&str] = &[
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551616",
    "4294967295",
    "4294967296",
    "99999",
    "1000000",
    "-1000000",
    "1000001",
    "-1",
    "0",
    "-0",
    "1e300",
    "0.5",
    "NaN",
    "inf",
    "-inf",
    "true",
    "yes",
    "",
    " ",
    "\"",
    "\"\"",
    "\"a\nb\"",
    "\u{feff}",
    "anchor,near,far",
    "a,b,answer",
    "item,cluster",
    "head",
    "\r",
    "\t",
    ";",
    ",",
    "\\",
    "#",
    "é",
    "\u{0}",
    "[",
    "{",
    "]}",
];

/// One generated input: the bytes and which reader path takes them.
pub struct Case {
    pub bytes: Vec<u8>,
    pub target: Target,
}

/// The reader paths a case goes through.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// `read_comparisons_from` in memory, with a forced format (or detection) and kind.
    Comparisons(Option<InputFormat>, Option<ComparisonKind>, bool),
    /// `read_comparisons` from a file (streaming reader, chunked).
    File(Option<InputFormat>),
    /// Labels, membership and items files.
    Labels,
    Membership,
    Items,
}

const FORMATS: [Option<InputFormat>; 9] = [
    None,
    Some(InputFormat::Csv),
    Some(InputFormat::ListOrder),
    Some(InputFormat::ListBoolean),
    Some(InputFormat::ListCount),
    Some(InputFormat::Salmon),
    Some(InputFormat::CarSurvey),
    Some(InputFormat::CarOrdinal),
    Some(InputFormat::FoodJson),
];

/// Apply one mutation to `b` (also used by the command-level fuzz test of `compclust-cli`).
pub fn mutate(r: &mut Rng, b: &mut Vec<u8>) {
    let pos = |r: &mut Rng, b: &Vec<u8>| r.below(b.len() + 1);
    match r.below(10) {
        0 if !b.is_empty() => {
            let i = r.below(b.len());
            b[i] = r.next() as u8;
        }
        1 => {
            let i = pos(r, b);
            let t = r.pick(TOKENS).as_bytes().to_vec();
            b.splice(i..i, t);
        }
        2 => {
            // replace a token between delimiters with a hostile one
            let text = String::from_utf8_lossy(b).into_owned();
            let mut fields: Vec<String> = text.split(',').map(str::to_string).collect();
            let i = r.below(fields.len());
            fields[i] = r.pick(TOKENS).to_string();
            *b = fields.join(",").into_bytes();
        }
        3 => {
            // duplicate a line (a repeated header, a repeated row)
            let text = String::from_utf8_lossy(b).into_owned();
            let lines: Vec<&str> = text.split('\n').collect();
            let l = r.below(lines.len());
            let at = r.below(lines.len());
            let mut out: Vec<&str> = lines.clone();
            out.insert(at, lines[l]);
            *b = out.join("\n").into_bytes();
        }
        4 if !b.is_empty() => {
            let i = r.below(b.len());
            b.truncate(i);
        }
        5 => {
            let d = *r.pick(b";\t |\"");
            for x in b.iter_mut() {
                if *x == b',' {
                    *x = d;
                }
            }
        }
        6 => b.splice(0..0, "\u{feff}".bytes()).for_each(drop),
        7 => {
            let i = pos(r, b);
            let crlf: &[u8] = if r.chance(2) { b"\r\n" } else { b"\r" };
            b.splice(i..i, crlf.iter().copied());
        }
        8 if !b.is_empty() => {
            let i = r.below(b.len());
            let j = (i + r.below(16)).min(b.len());
            b.drain(i..j);
        }
        _ => {
            let i = pos(r, b);
            let n = r.below(8);
            let junk: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
            b.splice(i..i, junk);
        }
    }
}

/// The `i`-th case of the run seeded `seed`.
pub fn case(seed: u64, i: u64) -> Case {
    let mut r = Rng::new(seed ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let bytes = if r.chance(10) {
        let n = r.below(200);
        (0..n).map(|_| r.next() as u8).collect()
    } else {
        let mut b = r.pick(SEEDS).as_bytes().to_vec();
        for _ in 0..1 + r.below(4) {
            mutate(&mut r, &mut b);
        }
        b
    };
    let target = match r.below(12) {
        0 => Target::Labels,
        1 => Target::Membership,
        2 => Target::Items,
        3 => Target::File(*r.pick(&FORMATS)),
        _ => {
            let kind = if r.chance(3) {
                Some(*r.pick(&ComparisonKind::ALL))
            } else {
                None
            };
            Target::Comparisons(*r.pick(&FORMATS), kind, r.chance(4))
        }
    };
    Case { bytes, target }
}

/// What one case did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Read,
    Rejected,
    Panicked(String),
}

/// Run `case` through its reader (files go to `scratch`), and a successful comparisons read
/// through a write and a read back. A panic is caught and reported.
pub fn run(case: &Case, scratch: &Path) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| run_inner(case, scratch)));
    match result {
        Ok(true) => Outcome::Read,
        Ok(false) => Outcome::Rejected,
        Err(p) => Outcome::Panicked(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    }
}

fn write_scratch(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::File::create(path).expect("scratch file");
    f.write_all(bytes).expect("scratch write");
}

fn run_inner(case: &Case, scratch: &Path) -> bool {
    match case.target {
        Target::Comparisons(format, kind, with_items) => {
            let items = with_items
                .then(|| ItemIndex::fixed(["a", "b", "c", "d", "0", "1", "2", "3"]).ok())
                .flatten();
            let opts = ReadOptions {
                kind,
                format,
                items,
            };
            let Ok(d) = read_comparisons_from(&case.bytes[..], "fuzz.csv", &opts) else {
                return false;
            };
            // What was read can be written and read back, except a row whose items are named
            // exactly like the header columns (`a,b,c,d` items from an items file): read back,
            // it is a repeated header, which is an error (docs/FORMATS.md).
            let kind = d.comparisons.kind();
            let header = compclust::data::kind_header(kind);
            let row_is_header = |items: &[u32]| {
                items.len() == header.len()
                    && items
                        .iter()
                        .zip(header)
                        .all(|(&i, h)| d.items.label(i as usize).eq_ignore_ascii_case(h))
            };
            let named_like_header = match &d.comparisons {
                compclust::data::Comparisons::Triplets(v) => {
                    v.iter().any(|t| row_is_header(&t.items()))
                }
                compclust::data::Comparisons::Quadruplets(v) => {
                    v.iter().any(|q| row_is_header(&q.items()))
                }
                compclust::data::Comparisons::SameCluster(_) => false,
            };
            if named_like_header {
                return true;
            }
            let mut out = Vec::new();
            write_comparisons_to(&mut out, &d, OutputFormat::Csv).expect("write to memory");
            let back = read_comparisons_from(
                &out[..],
                "back.csv",
                &ReadOptions {
                    kind: Some(kind),
                    ..ReadOptions::default()
                },
            )
            .expect("a written file reads back");
            assert_eq!(back.comparisons.len(), d.comparisons.len(), "round trip");
            true
        }
        Target::File(format) => {
            let path = scratch.join("in.csv");
            write_scratch(&path, &case.bytes);
            let opts = ReadOptions {
                format: format.filter(|f| *f != InputFormat::FoodJson),
                ..ReadOptions::default()
            };
            read_comparisons(&path, &opts).is_ok()
        }
        Target::Labels => {
            let path = scratch.join("labels.csv");
            write_scratch(&path, &case.bytes);
            read_labels(&path, None).is_ok()
        }
        Target::Membership => {
            let path = scratch.join("membership.csv");
            write_scratch(&path, &case.bytes);
            read_membership(&path, None).is_ok()
        }
        Target::Items => {
            let path = scratch.join("items.txt");
            write_scratch(&path, &case.bytes);
            read_items(&path).is_ok()
        }
    }
}

#[allow(dead_code)] // the example reports it; the test does not
/// Peak resident memory of this process in kB (`VmHWM`; `None` off Linux).
pub fn peak_rss_kb() -> Option<u64> {
    compclust::limits::peak_resident_memory().map(|b| (b / 1024) as u64)
}
