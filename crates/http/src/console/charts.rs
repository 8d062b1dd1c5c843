//! The metrics page, `/charts`: a chart per series, drawn as SVG by `console.js` from this node's
//! `/metrics`, polled every two seconds (counters as rates per second, summed over their labels;
//! gauges as they are), the last [`CHART_POINTS_MAX`] samples kept.

use std::fmt::Write;

use axum::http::StatusCode;
use axum::response::Response;
use strand_base::metric_names as names;

use super::html::page;

/// The samples a chart keeps (two minutes at one every two seconds).
pub const CHART_POINTS_MAX: usize = 60;

/// The charts: (series, how to draw it, title, unit).
const CHARTS: [(&str, &str, &str, &str); 8] = [
    (names::MESSAGES_IN, "rate", "Messages in", "/s"),
    (names::BYTES_IN, "rate", "Bytes in", "B/s"),
    (names::BYTES_OUT, "rate", "Bytes out", "B/s"),
    (names::REQUESTS, "rate", "Requests", "/s"),
    (names::UNDER_REPLICATED_PARTITIONS, "gauge", "Under-replicated partitions", ""),
    (names::CONNECTION_COUNT, "gauge", "Connections", ""),
    ("process_resident_memory_bytes", "gauge", "Resident memory", "B"),
    ("process_cpu_seconds_total", "rate", "CPU", "s/s"),
];

/// `GET /charts`.
pub async fn charts() -> Response {
    let mut body = format!(
        "<p class=\"facts\">This node's <a href=\"/metrics\">/metrics</a>, every two seconds. \
         <span id=\"charts-status\" class=\"none\">waiting for the first sample</span></p>\n\
         <section class=\"charts\" id=\"charts\" data-points=\"{CHART_POINTS_MAX}\">"
    );
    for (series, kind, title, unit) in CHARTS {
        let _ = write!(
            body,
            "<figure class=\"chart\" data-series=\"{series}\" data-kind=\"{kind}\" data-unit=\"{unit}\">\
             <figcaption>{title} <span class=\"latest\">–</span></figcaption>\
             <svg viewBox=\"0 0 300 100\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"{title}\"></svg></figure>"
        );
    }
    body.push_str("</section>\n");
    page(StatusCode::OK, "/charts", "Metrics", &body)
}
