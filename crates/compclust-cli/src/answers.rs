//! Repeated answers on the command line: the part of a JSON report that says what the
//! aggregation of repeated answers saw (shared by every command that reads answers).

use compclust::crowd::AggregateReport;

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
