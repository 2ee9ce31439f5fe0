//! Repeated answers on the command line: the part of a JSON report that says what the
//! aggregation of repeated answers saw (shared by every command that reads answers).

use std::path::Path;

use compclust::crowd::{AggregateReport, AggregatedAnswers, Aggregation, aggregate_answers};
use compclust::data::{Comparisons, ItemIndex, Workers, looks_like_header};

/// Aggregate the answers read from `path` (rows of `comparisons`, each by the worker of the
/// file's `worker` column, if any) into one answer per question. Dawid–Skene without a worker
/// column sees a single worker, which makes it a majority vote: the user is told so on
/// stderr. Returns the aggregated answers and the worker names.
pub fn aggregate_file(
    path: &Path,
    comparisons: &Comparisons,
    workers: Option<Workers>,
    how: Aggregation,
) -> (AggregatedAnswers, Vec<String>) {
    let (of_row, names) = match workers {
        Some(w) => (w.of_row, w.names),
        None => (Vec::new(), Vec::new()),
    };
    if how == Aggregation::DawidSkene && names.is_empty() {
        eprintln!(
            "warning: {}: --aggregate dawid-skene needs a `worker` column to tell workers \
             apart; without one every answer counts as one worker's, which is a majority vote",
            path.display()
        );
    }
    (aggregate_answers(comparisons, &of_row, how), names)
}

/// The aggregation part of the report: answers, distinct questions, disagreements, questions
/// tied,
/// and every worker's agreement with the aggregate (by name; none without a worker column).
pub fn answers_json(report: &AggregateReport, workers: &[String]) -> serde_json::Value {
    let per_worker: Vec<serde_json::Value> = if workers.is_empty() {
        Vec::new()
    } else {
        report
            .workers
            .iter()
            .map(|w| {
                serde_json::json!({
                    "worker": workers.get(w.worker as usize),
                    "answers": w.answers,
                    "agreeing": w.agreeing,
                    "agreement": w.agreeing as f64 / w.answers.max(1) as f64,
                    "accuracy": w.accuracy,
                })
            })
            .collect()
    };
    serde_json::json!({
        "aggregation": report.aggregation,
        "answers": report.answers,
        "questions": report.questions,
        "disagreements": report.disagreements,
        "undecided": report.undecided,
        "workers": per_worker,
    })
}

/// The questions of a crowd round as an ASK file: `header`, then every question (item indices)
/// by item label, written `redundancy` times (one row per person to ask). Labels are quoted
/// where CSV needs it (a comma, a quote), and a row of items named like the header's fields
/// is quoted whole, as the comparison writers do, so that an answer copied from it is read as
/// data and not as a repeated header.
pub fn ask_csv<const N: usize>(
    items: &ItemIndex,
    header: [&str; N],
    questions: impl IntoIterator<Item = [u32; N]>,
    redundancy: u32,
) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).expect("writing to memory");
    for q in questions {
        let row = q.map(|i| items.label(i as usize));
        if looks_like_header(&row, &header) {
            // rare: hand the bytes to a writer that quotes every field, then take them back
            let mut quoted = csv::WriterBuilder::new()
                .quote_style(csv::QuoteStyle::Always)
                .from_writer(into_bytes(w));
            for _ in 0..redundancy {
                quoted.write_record(row).expect("writing to memory");
            }
            w = csv::Writer::from_writer(into_bytes(quoted));
        } else {
            for _ in 0..redundancy {
                w.write_record(row).expect("writing to memory");
            }
        }
    }
    String::from_utf8(into_bytes(w)).expect("labels are UTF-8")
}

/// The bytes an in-memory CSV writer has written.
fn into_bytes(w: csv::Writer<Vec<u8>>) -> Vec<u8> {
    w.into_inner().expect("writing to memory")
}
