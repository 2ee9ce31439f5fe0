//! Repeated answers on the command line: the part of a JSON report that says what the
//! aggregation of repeated answers saw (shared by every command that reads answers).

use compclust::crowd::AggregateReport;
use compclust::data::ItemIndex;

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
/// where CSV needs it (a comma, a quote).
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
        for _ in 0..redundancy {
            w.write_record(row).expect("writing to memory");
        }
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("labels are UTF-8")
}
