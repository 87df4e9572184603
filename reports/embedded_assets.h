#pragma once
// Files compiled into the binary by reports/CMakeLists.txt (.incbin).
#include <string_view>

namespace lmroof::assets {
std::string_view vega_js();
std::string_view vega_lite_js();
std::string_view vega_embed_js();
std::string_view report_template_html();
std::string_view report_js();
std::string_view report_css();
// Vega-Lite chart templates (reports/template/charts/).
std::string_view chart_roofline();
std::string_view chart_pair();
std::string_view chart_block_shares();
std::string_view chart_intensity_vs_batch();
}  // namespace lmroof::assets
