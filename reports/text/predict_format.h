#pragma once
// `lmroof predict` as text for the terminal and as markdown for pull requests; the
// same tables in both (the JSON is predict::to_json).
#include <string>

#include "analysis/predict/prediction.h"

namespace lmroof::report {

std::string predict_text(const predict::Prediction& prediction);
std::string predict_markdown(const predict::Prediction& prediction);
// The same tables as HTML sections (reports/predict_report.cpp's page).
std::string predict_tables_html(const predict::Prediction& prediction);

// "16.0 GiB (17,179,869,184 B)"-style binary size of a byte count, for KV caches.
std::string binary_bytes(double bytes);
// The plain statement when the weights alone do not fit, "" when they fit (or the
// device's memory is unknown).
std::string weights_fit_statement(const predict::Prediction& prediction, const predict::DevicePrediction& device);

}  // namespace lmroof::report
