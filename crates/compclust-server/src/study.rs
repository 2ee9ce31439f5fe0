//! The study file of a served study (`compclust serve --study STUDY.toml`): who is asked what,
//! by which algorithm, how often, and what participants are shown.
//!
//! ```toml
//! id = "animals"
//! title = "Which animals are alike?"
//! instructions = "Pick the pair that is more alike."
//! debrief = "Thank you!"
//! code = "C0MPL3TE"
//! items = ["cat", "dog", "cow", "ant", "bee", "wasp"]   # or "items.txt", or a folder of images
//! question = "quadruplet"
//! algorithm = "cl"
//! answers_per_question = 1
//! questions_per_participant = 40
//! seed = 7
//!
//! [parameters]        # the algorithm's flags, named as in `compclust hierarchy` / `overlap`
//! references = 10
//! ```
//!
//! The algorithm's parameters carry the names of the command-line flags that the pinned study
//! of a file-round study records (`compclust hierarchy --study`, `compclust overlap --study`),
//! so a served study and the same study run in file rounds are the same computation. The file
//! is read by the library's study-file reader ([`compclust::study::read`]), the one that reads
//! the pinned studies of file rounds: the same size bound and one-line errors naming the line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use compclust::crowd::Aggregation;
use compclust::data::{ItemIndex, read_items};
use compclust::design::QuestionCount;
use compclust::hierarchy::{ActiveKernelParams, HierarchyMethod, HierarchyParams, ReferencePairs};
use compclust::overlap::triangle::Noise;
use compclust::overlap::{Ensemble, OverlapMethod, OverlapParams, SampleSize};
use serde::Deserialize;

pub use crate::items::ItemDisplay;
use crate::items::{read_image_folder, with_html};

/// The kind of question a study asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionKind {
    /// "Is `anchor` closer to `x` or to `y`?" (Perrot et al. 2020, §2).
    Triplet,
    /// "Is the pair (a, b) or the pair (c, d) more similar?" (Ghoshdastidar et al. 2019, §2).
    Quadruplet,
    /// "Are `a` and `b` in the same cluster?" (Huleihel et al. 2019, §1).
    SameCluster,
}

impl QuestionKind {
    /// The name in the study file and in `/api/next`.
    pub fn name(self) -> &'static str {
        match self {
            QuestionKind::Triplet => "triplet",
            QuestionKind::Quadruplet => "quadruplet",
            QuestionKind::SameCluster => "same-cluster",
        }
    }
}

/// `items`: a list of names, or the path of an items file (one name per line), relative to
/// the study file.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum ItemsSpec {
    List(Vec<String>),
    File(PathBuf),
}

/// The study file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    instructions: String,
    #[serde(default)]
    debrief: String,
    #[serde(default)]
    code: String,
    items: ItemsSpec,
    question: QuestionKind,
    algorithm: String,
    #[serde(default = "one")]
    answers_per_question: u32,
    questions_per_participant: Option<u32>,
    #[serde(default)]
    seed: u64,
    budget: Option<usize>,
    #[serde(default = "default_reissue")]
    reissue_after_s: u64,
    #[serde(default)]
    parameters: BTreeMap<String, toml::Value>,
    /// Item name → HTML fragment shown instead of the name.
    #[serde(default)]
    html: BTreeMap<String, String>,
}

fn one() -> u32 {
    1
}

fn default_reissue() -> u64 {
    120
}

/// What the algorithm of a study is, with its library parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Algorithm {
    /// AddS-3 + SPUR (Perrot et al. 2020, §4, App. D) on a passive random design of `budget`
    /// distinct triplets (Perrot et al. 2020, §2), drawn with the study's seed.
    AddsSpur {
        /// Distinct triplets asked.
        budget: QuestionCount,
    },
    /// 4-AL (Ghoshdastidar et al. 2019, eq. 4-5) on a passive random design of `budget`
    /// distinct quadruplets, drawn with the study's seed.
    FourAl {
        /// Distinct quadruplets asked.
        budget: QuestionCount,
    },
    /// Comparison-based SL / CL (Ghoshdastidar et al. 2019, §3.1) or active 4K-AL (eq. 1-2).
    Hierarchy(HierarchyParams),
    /// One of the same-cluster algorithms of Huleihel et al. (2019).
    Overlap(OverlapParams),
}

impl Algorithm {
    /// The family, as the result endpoint names it (`flat`, `hierarchy`, `overlap`).
    pub fn family(&self) -> &'static str {
        match self {
            Algorithm::AddsSpur { .. } => "flat",
            Algorithm::FourAl { .. } | Algorithm::Hierarchy(_) => "hierarchy",
            Algorithm::Overlap(_) => "overlap",
        }
    }

    /// The question kind the algorithm asks.
    pub fn question(&self) -> QuestionKind {
        match self {
            Algorithm::AddsSpur { .. } => QuestionKind::Triplet,
            Algorithm::FourAl { .. } | Algorithm::Hierarchy(_) => QuestionKind::Quadruplet,
            Algorithm::Overlap(_) => QuestionKind::SameCluster,
        }
    }

    /// Whether a same-cluster answer is a count of shared clusters (direct answers:
    /// FindMembership, FindSimilarity) rather than yes / no.
    pub fn counts(&self) -> bool {
        matches!(
            self,
            Algorithm::Overlap(p) if matches!(
                p.method,
                OverlapMethod::FindMembership | OverlapMethod::FindSimilarity
            )
        )
    }
}

/// A served study, read and checked.
#[derive(Clone, Debug)]
pub struct Study {
    /// The study's id (in URLs and requests).
    pub id: String,
    /// Shown to participants.
    pub title: String,
    /// Shown to participants before the first question.
    pub instructions: String,
    /// Shown with the completion code.
    pub debrief: String,
    /// The completion code participants get when they are done.
    pub code: String,
    /// The items, in index order.
    pub items: ItemIndex,
    /// How each item is shown to participants, in index order.
    pub display: Vec<ItemDisplay>,
    /// The algorithm and its parameters.
    pub algorithm: Algorithm,
    /// How many people answer each question (a majority tie asks once more).
    pub answers_per_question: u32,
    /// How the answers to one question are combined before the algorithm sees them
    /// (`parameters.aggregate`: majority vote by default, or one-coin Dawid–Skene).
    pub aggregation: Aggregation,
    /// At most this many answers per participant.
    pub questions_per_participant: Option<u32>,
    /// The seed of every random choice of the algorithm (and of the design).
    pub seed: u64,
    /// A question handed out and not answered within this many seconds is handed out again.
    pub reissue_after_s: u64,
    /// The study file (for messages).
    pub path: PathBuf,
}

/// Read and check the study file at `path`; errors name the file and the field.
pub fn read_study(path: &Path) -> anyhow::Result<Study> {
    let p = path.display();
    let file: StudyFile =
        compclust::study::read(path).map_err(|e| anyhow::anyhow!("--study {e}"))?;
    check_id(&file.id).with_context(|| format!("{p}: field `id`"))?;
    let (items, display) = match &file.items {
        ItemsSpec::List(names) => (
            ItemIndex::fixed(names.iter().map(|s| s.trim().to_string()))
                .with_context(|| format!("{p}: field `items`"))?,
            Vec::new(),
        ),
        ItemsSpec::File(f) => {
            let f = path.parent().unwrap_or(Path::new(".")).join(f);
            if f.is_dir() {
                read_image_folder(&f).with_context(|| format!("{p}: field `items`"))?
            } else {
                (
                    read_items(&f).with_context(|| format!("{p}: field `items`"))?,
                    Vec::new(),
                )
            }
        }
    };
    let display = with_html(&items, display, &file.html).with_context(|| format!("{p}"))?;
    if items.len() < 3 {
        bail!(
            "{p}: field `items`: {} items; a study needs at least 3",
            items.len()
        );
    }
    if file.answers_per_question == 0 || file.answers_per_question > 100 {
        bail!(
            "{p}: field `answers_per_question`: {} (give 1 to 100)",
            file.answers_per_question
        );
    }
    if file.questions_per_participant == Some(0) {
        bail!("{p}: field `questions_per_participant`: 0 (give at least 1)");
    }
    if file.reissue_after_s == 0 {
        bail!("{p}: field `reissue_after_s`: 0 (give at least 1 second)");
    }
    let (algorithm, aggregation) = algorithm(&file).with_context(|| format!("{p}"))?;
    if algorithm.question() != file.question {
        bail!(
            "{p}: field `question`: `{}` does not fit algorithm `{}`, which asks {} questions",
            file.question.name(),
            file.algorithm,
            algorithm.question().name()
        );
    }
    Ok(Study {
        id: file.id,
        title: file.title,
        instructions: file.instructions,
        debrief: file.debrief,
        code: file.code,
        items,
        display,
        algorithm,
        answers_per_question: file.answers_per_question,
        aggregation,
        questions_per_participant: file.questions_per_participant,
        seed: file.seed,
        reissue_after_s: file.reissue_after_s,
        path: path.to_path_buf(),
    })
}

/// A study id: 1 to 64 characters of letters, digits, `-` and `_` (it goes into URLs).
fn check_id(id: &str) -> anyhow::Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok {
        bail!("`{id}`: give 1 to 64 letters, digits, `-` or `_`");
    }
    Ok(())
}

/// The parameters table, read by flag name.
struct Params<'a> {
    table: &'a BTreeMap<String, toml::Value>,
    used: Vec<&'static str>,
}

impl<'a> Params<'a> {
    fn new(table: &'a BTreeMap<String, toml::Value>) -> Self {
        Params {
            table,
            used: Vec::new(),
        }
    }

    /// The value of `name` as text (numbers and booleans as written), if given.
    fn text(&mut self, name: &'static str) -> Option<String> {
        self.used.push(name);
        self.table.get(name).map(|v| match v {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }

    fn parse<T: std::str::FromStr>(&mut self, name: &'static str) -> anyhow::Result<Option<T>>
    where
        T::Err: std::fmt::Display,
    {
        match self.text(name) {
            None => Ok(None),
            Some(s) => s
                .parse::<T>()
                .map(Some)
                .map_err(|e| anyhow::anyhow!("field `parameters.{name}`: `{s}`: {e}")),
        }
    }

    /// Error on a parameter the algorithm does not read (a typo would otherwise be ignored).
    fn finish(self, algorithm: &str) -> anyhow::Result<()> {
        for name in self.table.keys() {
            if !self.used.contains(&name.as_str()) {
                bail!(
                    "field `parameters.{name}`: not a parameter of `{algorithm}` (it reads: {})",
                    if self.used.is_empty() {
                        "none".to_string()
                    } else {
                        self.used.join(", ")
                    }
                );
            }
        }
        Ok(())
    }
}

/// The algorithm of the study file and its library parameters, with the defaults of the
/// command-line flags of the same names, and the aggregation of repeated answers.
fn algorithm(file: &StudyFile) -> anyhow::Result<(Algorithm, Aggregation)> {
    let mut p = Params::new(&file.parameters);
    let name = file.algorithm.as_str();
    let aggregation: Aggregation = p.parse("aggregate")?.unwrap_or_default();
    let budget = match file.budget {
        Some(0) => bail!("field `budget`: 0 (give at least 1 question, or leave it out)"),
        Some(b) => QuestionCount::Exactly(b),
        None => QuestionCount::Auto,
    };
    let algo = match name {
        "adds-spur" => Algorithm::AddsSpur { budget },
        _ => {
            if let Ok(method) = name.parse::<HierarchyMethod>()
                && method == HierarchyMethod::FourAl
            {
                Algorithm::FourAl { budget }
            } else if let Ok(method) = name.parse::<HierarchyMethod>() {
                let references: Option<usize> = p.parse("references")?;
                let budget: Option<usize> = p.parse("budget")?;
                let landmark: Option<f64> = p.parse("landmark-prob")?;
                if references.is_some() && budget.is_some() {
                    bail!("field `parameters.budget`: give `references` or `budget`, not both");
                }
                let references = match budget {
                    Some(b) => ReferencePairs::Budget(b),
                    None => ReferencePairs::Count(references.unwrap_or(10)),
                };
                let params = HierarchyParams::new(method)
                    .with_seed(file.seed)
                    .with_active(ActiveKernelParams {
                        landmark_prob: landmark.unwrap_or(1.0),
                        references,
                        seed: file.seed,
                    });
                Algorithm::Hierarchy(params)
            } else if let Ok(method) = name.parse::<OverlapMethod>() {
                let k: Option<usize> = p.parse("k")?;
                let delta: Option<usize> = p.parse("delta")?;
                let ensemble: Ensemble = p.parse("ensemble")?.unwrap_or_default();
                let assume_q: Option<f64> = p.parse("assume-q")?;
                let unknown_q: bool = p.parse("unknown-q")?.unwrap_or(false);
                let sample_size: SampleSize = p.parse("sample-size")?.unwrap_or(SampleSize::Auto);
                let probes: SampleSize = p.parse("probes")?.unwrap_or(SampleSize::Auto);
                let noise = if unknown_q {
                    Noise::Bsc { q: None }
                } else {
                    Noise::Bsc {
                        q: Some(assume_q.unwrap_or(0.0)),
                    }
                };
                let params = OverlapParams {
                    method,
                    k,
                    delta,
                    noise,
                    sample_size,
                    probes,
                    seed: file.seed,
                    ensemble,
                };
                params.check().map_err(|e| anyhow::anyhow!("{e}"))?;
                Algorithm::Overlap(params)
            } else {
                bail!(
                    "field `algorithm`: unknown algorithm `{name}` (adds-spur; 4al, sl, cl, \
                     4kal-act; find-membership, find-similarity, clique-cover, triangle-count)"
                );
            }
        }
    };
    if file.budget.is_some()
        && !matches!(algo, Algorithm::AddsSpur { .. } | Algorithm::FourAl { .. })
    {
        bail!(
            "field `budget`: only the passive designs (`adds-spur`: triplets, `4al`: \
             quadruplets) ask `budget` questions; `{name}` chooses its own"
        );
    }
    p.finish(name)?;
    Ok((algo, aggregation))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("study.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_study_names_the_field_that_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let base = "id = \"s\"\nitems = [\"a\", \"b\", \"c\", \"d\"]\n";
        let ok = write(
            dir.path(),
            &format!("{base}question = \"quadruplet\"\nalgorithm = \"cl\"\nseed = 3\n"),
        );
        let s = read_study(&ok).unwrap();
        assert_eq!(s.algorithm.family(), "hierarchy");
        let cases = [
            (
                "question = \"triplet\"\nalgorithm = \"cl\"\n",
                "field `question`",
            ),
            (
                "question = \"quadruplet\"\nalgorithm = \"xx\"\n",
                "field `algorithm`",
            ),
            (
                "question = \"same-cluster\"\nalgorithm = \"find-similarity\"\n[parameters]\nk = \"x\"\n",
                "parameters.k",
            ),
            (
                "question = \"quadruplet\"\nalgorithm = \"cl\"\n[parameters]\nkk = 3\n",
                "parameters.kk",
            ),
            (
                "question = \"quadruplet\"\nalgorithm = \"cl\"\nanswers_per_question = 0\n",
                "answers_per_question",
            ),
        ];
        for (extra, want) in cases {
            let p = write(dir.path(), &format!("{base}{extra}"));
            let e = format!("{:#}", read_study(&p).unwrap_err());
            assert!(e.contains(want), "{extra}: {e}");
        }
    }
}
