#include "analysis/roofs/roof_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace lmroof {

namespace {

std::string gib(double bytes) { return fmt::format("{:.3g} MiB", bytes / (1 << 20)); }

// The innermost cache level that holds `bytes`; nullptr when none does.
const CacheRoof* level_holding(const std::vector<CacheRoof>& caches, double bytes) {
  for (const auto& c : caches)
    if (bytes > 0 && bytes <= c.capacity_bytes) return &c;
  return nullptr;
}

// Where a run's re-reads by design come from: the innermost level that holds every
// thread's re-read set at once (or the one set the threads share); nullptr: DRAM.
const CacheRoof* level_holding_rereads(const Traffic& t, const MachineRoofs& r) {
  return level_holding(r.caches, t.reread_set_shared ? t.reread_set_bytes : t.reread_set_bytes * r.threads);
}

// "(1 MiB per thread, 2 threads fit its 2 MiB)": the re-read set and why it fits `fit`.
std::string reread_set_words(const Traffic& t, const MachineRoofs& r, const CacheRoof* fit) {
  if (t.reread_set_shared)
    return fmt::format("({} shared by the threads{})", gib(t.reread_set_bytes),
                       fit ? fmt::format(", which fits its {}", gib(fit->capacity_bytes)) : "");
  return fmt::format("({} per thread{})", gib(t.reread_set_bytes),
                     fit ? fmt::format(", {} threads fit its {}", r.threads, gib(fit->capacity_bytes)) : "");
}

struct MemoryTime {
  std::string roof;
  double seconds = 0;
  std::string rule;
  std::optional<std::string> level;
};

// "l3_read" -> "L3": a cache roof's level as the bandwidth curve names it.
std::string level_of_cache(const std::string& roof) {
  std::string l = roof.substr(0, 2);
  for (auto& ch : l) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return l;
}

// The curve's copy rate at `bytes` (linear in log(bytes) between the points that have
// one, the end point's outside); nullopt when no point measured copy.
std::optional<double> copy_at(const model::BandwidthCurve& curve, double bytes) {
  std::vector<std::pair<double, double>> xs;
  for (const auto& p : curve.points)
    if (p.copy && *p.copy > 0) xs.emplace_back(p.working_set_bytes, *p.copy);
  if (xs.empty()) return std::nullopt;
  if (bytes <= xs.front().first) return xs.front().second;
  for (size_t i = 1; i < xs.size(); ++i)
    if (bytes <= xs[i].first) {
      const double t = std::log(bytes / xs[i - 1].first) / std::log(xs[i].first / xs[i - 1].first);
      return xs[i - 1].second + t * (xs[i].second - xs[i - 1].second);
    }
  return xs.back().second;
}

// The curve's level that holds `bytes`: the innermost with a capacity at least that,
// else the last (DRAM / HBM); nullptr for a curve without levels.
const model::MemoryLevel* curve_level(const model::BandwidthCurve& curve, double bytes) {
  for (const auto& l : curve.levels)
    if (l.capacity_bytes && bytes <= *l.capacity_bytes) return &l;
  return curve.levels.empty() ? nullptr : &curve.levels.back();
}

// Rules 2 and 3 with the rates the bandwidth curve measured at the run's own working set
// (ERT and likwid-bench measure bandwidth this way): a level's roof measured in a small
// set is not applied near its capacity, and a working set just beyond the outermost
// cache gets the rate measured there, not a guess of how much of it stays cached.
std::optional<MemoryTime> curve_memory_time(const Traffic& t, const MachineRoofs& r) {
  const model::BandwidthCurve& curve = *r.curve;
  const double bytes = t.bytes_read + t.bytes_written;
  if (bytes <= 0) return MemoryTime{"none", 0, "the run moves no bytes", std::nullopt};
  const double ws = t.working_set_bytes;
  const double read = curve.read_at(ws);
  if (!(read > 0) || !std::isfinite(read)) return std::nullopt;
  const model::MemoryLevel* level = curve_level(curve, ws);
  const std::string level_name = level ? level->name : std::string(curve.backend == "cuda" ? "HBM" : "DRAM");
  const bool in_cache = level && level->capacity_bytes;
  // Re-reads by design come from where their set sits: the curve's rate at the size of
  // every thread's re-read set at once (or the one shared set), when that is faster.
  const double reread = std::min(t.bytes_reread, t.bytes_read);
  const double reread_set = t.reread_set_shared ? t.reread_set_bytes : t.reread_set_bytes * r.threads;
  const double reread_rate = reread > 0 && reread_set > 0 ? std::max(read, curve.read_at(reread_set)) : read;
  std::string rule = fmt::format("its working set ({}) is in {} on the bandwidth curve ({} threads), which reads "
                                 "{}B/s there",
                                 gib(ws), level_name, curve.threads, fmt::format("{:.4g} G", read / 1e9));
  std::string roof = level_name + " curve";
  double seconds = 0;
  if (in_cache) {
    seconds = (bytes - reread) / read + reread / reread_rate;
    rule += ": all its bytes at that rate";
  } else {
    // Beyond every cache: as many reads as writes at the best copy (the copy ceilings or
    // the curve's copy at this working set), the other reads at the curve's read rate.
    double copy = copy_at(curve, ws).value_or(0.0);
    std::string copy_name = "the curve's copy";
    for (auto [name, v] : {std::pair{"copy", r.copy}, std::pair{"copy_nt", r.copy_nt}})
      if (v && *v > copy) copy = *v, copy_name = name;
    if (!(copy > 0)) copy = read, copy_name = "the read rate";
    // Just beyond the outermost cache the curve still reads faster than a DRAM copy: the
    // cache still serves part of the set, and it serves the copy's share the same way. A
    // roof is the fastest the machine allows, so the copy is at least that read rate
    // (norm at 32 MiB on a 32 MiB L3 ran at 120% of a DRAM copy_nt roof, 2026-12-04).
    // Only there: on the memory plateau itself a copy keeps the rate it was measured at.
    const model::MemoryLevel* memory = curve.levels.empty() ? nullptr : &curve.levels.back();
    const bool partly_cached = memory && !memory->capacity_bytes && read > memory->bandwidth;
    if (partly_cached && read > copy) copy = read, copy_name = "the curve's read (the set is still partly cached)";
    const double once = std::max(0.0, t.bytes_read - reread);
    const double paired = std::min(once, t.bytes_written);
    seconds = 2 * paired / copy + (once - paired) / read + (t.bytes_written - paired) / copy + reread / reread_rate;
    rule += fmt::format(": as many reads as writes at the best copy ({}, {:.4g} GB/s), the other reads at that rate",
                        copy_name, copy / 1e9);
    // Bytes written with streaming stores bypass the caches (as in nominal_memory_time):
    // only the rest of the working set competes for them, so the reads sit on the curve
    // at that smaller set, and the writes go to memory at the best copy. Unless the
    // whole set is under twice the outermost cache, where the writes too may stay on
    // chip and the partly-cached rule above serves every byte. The faster of the two is
    // the roof (QK-norm's passes at 1024 tokens read 36 MiB and stream 36 MiB out; on a
    // 32 MiB L3 they ran at 106-109% of the copy_nt roof of their 72.5 MiB set, 2026-12-05).
    const model::MemoryLevel* outer = nullptr;
    for (const auto& l : curve.levels)
      if (l.capacity_bytes) outer = &l;
    const double streamed = std::min(t.streamed_write_bytes, ws);
    if (streamed > 0 && outer && ws >= kDramResidentOverOuterCache * *outer->capacity_bytes) {
      const double competing = ws - streamed;
      const double read_there = competing > 0 ? curve.read_at(competing) : 0;
      const double split = read_there > read
                               ? once / read_there + t.bytes_written / copy + reread / std::max(reread_rate, read_there)
                               : seconds;
      if (split < seconds) {
        seconds = split;
        rule += fmt::format("; but its {} written with streaming stores bypass the caches, and its reads come from the "
                            "rest ({}), which the curve reads at {:.4g} GB/s: its reads at that rate, its writes at the "
                            "best copy",
                            gib(streamed), gib(competing), read_there / 1e9);
      }
    }
    if ((2 * paired + t.bytes_written - paired) >= 0.05 * bytes && copy_name != "the curve's copy" &&
        copy_name != "the read rate" && copy_name.rfind("the curve's read", 0) != 0)
      roof = copy_name + "+" + roof;
  }
  if (reread > 0 && reread_rate > read)
    rule += fmt::format(", but for the {} re-read by design, whose set ({}) the curve reads at {:.4g} GB/s",
                        gib(reread), gib(reread_set), reread_rate / 1e9);
  return MemoryTime{roof, seconds, rule, level_name};
}

std::optional<MemoryTime> nominal_memory_time(const Traffic& t, const MachineRoofs& r);

std::optional<MemoryTime> memory_time(const Traffic& t, const MachineRoofs& r) {
  if (r.curve && !r.curve->points.empty()) return curve_memory_time(t, r);
  auto m = nominal_memory_time(t, r);
  if (m && r.curve_set_aside && m->roof != "none") m->rule += fmt::format(" (at the level ceilings: {})", *r.curve_set_aside);
  return m;
}

// Rules 2 and 3 at the level ceilings' nominal capacities (no curve, or one set aside).
std::optional<MemoryTime> nominal_memory_time(const Traffic& t, const MachineRoofs& r) {
  const double bytes = t.bytes_read + t.bytes_written;
  if (bytes <= 0) return MemoryTime{"none", 0, "the run moves no bytes", std::nullopt};
  if (const CacheRoof* fit = level_holding(r.caches, t.working_set_bytes)) {
    std::string rule = fmt::format("its working set ({}) fits {} ({}): all its bytes at that level's read roof",
                                   gib(t.working_set_bytes), fit->name.substr(0, 2), gib(fit->capacity_bytes));
    // Re-reads by design whose set fits an inner level come from there: naive MQA
    // decode at context 1024 re-reads one kv head's 1 MiB of K and V per thread, which
    // the L2s hold, while its 4 MiB working set needs L3 (at the L3 roof alone it ran
    // at 110% of it, Zen 5 guest, 2026-12-01).
    const double reread = std::min(t.bytes_reread, t.bytes_read);
    const CacheRoof* inner = reread > 0 ? level_holding_rereads(t, r) : nullptr;
    if (!inner || inner->capacity_bytes >= fit->capacity_bytes || !(inner->value > fit->value))
      return MemoryTime{fit->name, bytes / fit->value, rule, level_of_cache(fit->name)};
    rule += fmt::format(", but for the {} re-read by design, which come from {} {}", gib(reread),
                        inner->name.substr(0, 2), reread_set_words(t, r, inner));
    const bool named = bytes - reread >= 0.05 * bytes;
    return MemoryTime{named ? fit->name + "+" + inner->name : inner->name,
                      (bytes - reread) / fit->value + reread / inner->value, rule, level_of_cache(fit->name)};
  }
  if (!r.copy && !r.copy_nt) return std::nullopt;
  const bool nt = r.copy_nt && (!r.copy || *r.copy_nt > *r.copy);
  const double copy = nt ? *r.copy_nt : *r.copy;
  const char* copy_name = nt ? "copy_nt" : "copy";
  const double read = r.read.value_or(copy);  // no read roof measured: reads at the copy rate
  const char* read_name = r.read ? "read" : copy_name;

  const double once = std::max(0.0, t.bytes_read - t.bytes_reread);
  const double paired = std::min(once, t.bytes_written);
  double seconds = 2 * paired / copy + (once - paired) / read + (t.bytes_written - paired) / copy;
  std::vector<std::string> parts;
  // A part is named when it carries at least 5% of the bytes.
  if (2 * paired + (t.bytes_written - paired) >= 0.05 * bytes) parts.push_back(copy_name);
  if (once - paired >= 0.05 * bytes && std::find(parts.begin(), parts.end(), read_name) == parts.end())
    parts.push_back(read_name);
  std::string rule = fmt::format("its working set ({}) fits no cache: {} read once and {} written stream from DRAM "
                                 "(as many reads as writes at the best copy, {}, the other reads at the read roof)",
                                 gib(t.working_set_bytes), gib(once), gib(t.bytes_written), copy_name);
  // Partly cache-resident: a working set under twice the outermost cache can have
  // up to capacity / working set of its streamed bytes served by that cache on the
  // repetitions after the first (a victim L3 such as Zen's keeps part of a stream that
  // overflows it). The roof is the best case, so that share is taken at the cache's
  // read roof: a run between the DRAM and the cache roof is explained, not over 100%.
  //
  // Bytes written with streaming stores bypass the caches: they go to DRAM, and only
  // the rest of the working set competes for the cache, so up to capacity / that
  // rest of the reads may be served there. (Measured on the 2-core Zen 4 VM,
  // 2026-12-01: QK-norm's RoPE pass at 1024 tokens, 37.7 MB read and 37.7 MB
  // streamed out, ran at 104% of its DRAM copy roof once its stores streamed.)
  // Unless the whole working set is under twice the cache: then the streamed writes
  // too may be held on chip, and the best case is the rule above for all bytes (Zen 5
  // guest, 2026-12-02: fused RMSNorm at 4096 x 1024 wrote its 16 MiB of y at about
  // 93 GB/s, where streaming stores alone to DRAM ran at 32-45 GB/s).
  const CacheRoof* outer = r.caches.empty() ? nullptr : &r.caches.back();
  const bool whole_under_twice =
      outer && t.working_set_bytes < kDramResidentOverOuterCache * outer->capacity_bytes;
  const bool streamed = t.streamed_write_bytes > 0 && !whole_under_twice;
  const double competing =
      streamed ? t.working_set_bytes - std::min(t.streamed_write_bytes, t.working_set_bytes) : t.working_set_bytes;
  if (outer && outer->value > 0 && t.working_set_bytes > outer->capacity_bytes &&
      competing < kDramResidentOverOuterCache * outer->capacity_bytes) {
    const double cached = competing > 0 ? std::min(1.0, outer->capacity_bytes / competing) : 1.0;
    parts.insert(parts.begin(), outer->name);
    if (streamed) {
      const double from_cache = cached * once, from_dram = once - from_cache;
      const double pair = std::min(from_dram, t.bytes_written);
      seconds = 2 * pair / copy + (from_dram - pair) / read + (t.bytes_written - pair) / copy + from_cache / outer->value;
      rule += fmt::format("; its {} written with streaming stores bypass the caches, and the rest ({}) is under "
                          "twice {} ({}), so up to {:.0f}% of its reads may come from there at its read roof",
                          gib(t.streamed_write_bytes), gib(competing), outer->name.substr(0, 2),
                          gib(outer->capacity_bytes), 100 * cached);
    } else {
      seconds = (1 - cached) * seconds + cached * (once + t.bytes_written) / outer->value;
      rule += fmt::format("; it is under twice {} ({}), so up to {:.0f}% of those bytes may come from there at its "
                          "read roof{}",
                          outer->name.substr(0, 2), gib(outer->capacity_bytes), 100 * cached,
                          t.streamed_write_bytes > 0 ? " (its writes too, streamed or not: a working set this small "
                                                       "may hold them on chip)"
                                                     : "");
    }
  }
  if (t.bytes_reread > 0) {
    const CacheRoof* fit = level_holding_rereads(t, r);
    seconds += t.bytes_reread / (fit ? fit->value : read);
    const std::string from = fit ? fit->name : read_name;
    if (t.bytes_reread >= 0.05 * bytes && std::find(parts.begin(), parts.end(), from) == parts.end())
      parts.push_back(from);
    rule += fmt::format("; {} re-read by design come from {} {}", gib(t.bytes_reread),
                        fit ? fit->name.substr(0, 2) : std::string("DRAM"), reread_set_words(t, r, fit));
  }
  if (parts.empty()) parts.push_back(read_name);
  std::string name;
  for (const auto& p : parts) name += (name.empty() ? "" : "+") + p;
  return MemoryTime{name, seconds, rule, std::string("DRAM")};
}

}  // namespace

Traffic traffic_of(const Cost& cost) {
  Traffic t;
  t.flops = cost.flops.total();
  if (cost.bytes_read + cost.bytes_written > 0) {
    t.bytes_read = cost.bytes_read;
    t.bytes_written = cost.bytes_written;
  } else {
    t.bytes_read = t.bytes_written = cost.bytes_model / 2;
  }
  t.bytes_reread = cost.bytes_reread;
  t.reread_set_bytes = cost.reread_set_bytes;
  t.reread_set_shared = cost.reread_set_shared;
  t.working_set_bytes = cost.working_set();
  t.streamed_write_bytes = std::min(cost.bytes_streamed_out, cost.bytes_written);
  return t;
}

std::optional<RoofChoice> choose_roof(const Traffic& t, const MachineRoofs& r) {
  const auto memory = memory_time(t, r);
  const bool has_compute = r.fp32_fma && *r.fp32_fma > 0;
  if (!memory && !has_compute) return std::nullopt;
  if (!memory && t.bytes_read + t.bytes_written > 0) return std::nullopt;  // half a verdict is a wrong one
  const double compute_s = has_compute ? t.flops / *r.fp32_fma : 0;
  if (t.flops > 0 && !has_compute) return std::nullopt;
  if (has_compute && t.flops > 0 && (!memory || compute_s >= memory->seconds))
    return RoofChoice{"fp32_fma", "FLOP/s", *r.fp32_fma, compute_s,
                      memory && memory->seconds > 0
                          ? fmt::format("compute-bound: its FLOPs take longer at the FP32 FMA peak ({:.3g} ms) "
                                           "than its bytes at the memory roof ({}, {:.3g} ms); for its bytes, {}",
                                           compute_s * 1e3, memory->roof, memory->seconds * 1e3, memory->rule)
                          : fmt::format("compute-bound: it moves no bytes; its FLOPs take {:.3g} ms at the FP32 "
                                        "FMA peak",
                                        compute_s * 1e3),
                      memory ? memory->level : std::nullopt};
  if (!memory || memory->seconds <= 0) return std::nullopt;
  const double bytes = t.bytes_read + t.bytes_written;
  return RoofChoice{memory->roof, "B/s", bytes / memory->seconds, memory->seconds, "memory-bound: " + memory->rule,
                    memory->level};
}

std::optional<RoofChoice> composite_roof(const std::vector<Step>& steps, const Traffic& t, const MachineRoofs& r) {
  if (steps.size() < 2 || !r.fp32_fma || !(*r.fp32_fma > 0)) return std::nullopt;
  const auto memory = memory_time(t, r);
  const double bytes = t.bytes_read + t.bytes_written;
  if (!memory || !(memory->seconds > 0) || !(bytes > 0)) return std::nullopt;
  const double rate = bytes / memory->seconds;  // the whole run's memory rate, B/s
  double seconds = 0;
  std::string parts;
  for (const auto& s : steps) {
    const double compute_s = s.flops / *r.fp32_fma, memory_s = s.bytes / rate;
    seconds += std::max(compute_s, memory_s);
    parts += fmt::format("{}{} {:.3g} ms ({})", parts.empty() ? "" : ", ", s.name, std::max(compute_s, memory_s) * 1e3,
                         compute_s >= memory_s ? "FLOPs at fp32_fma" : "bytes at " + memory->roof);
  }
  const auto whole = choose_roof(t, r);
  if (!whole || !(seconds > whole->seconds * (1 + 1e-9))) return std::nullopt;
  const bool flops = t.flops > 0;
  return RoofChoice{"fp32_fma+" + memory->roof + " by step", flops ? "FLOP/s" : "B/s",
                    (flops ? t.flops : bytes) / seconds, seconds,
                    fmt::format("composite: the sum of its steps' roof times, Σ max(F/P, B/W) with P the FP32 FMA "
                                "peak and W its memory rate ({:.4g} GB/s, {}): {}; the whole run at one roof would "
                                "allow {:.3g} ms",
                                rate / 1e9, memory->roof, parts, whole->seconds * 1e3),
                    memory->level, true};
}

MachineRoofs cpu_roofs_from_ceilings(const std::vector<model::Ceiling>& ceilings) {
  MachineRoofs r;
  for (const auto& c : ceilings) {
    if (c.backend != "cpu" || c.source != "measured" || !(c.value > 0)) continue;
    if (c.name == "read") r.read = c.value;
    if (c.name == "copy") r.copy = c.value;
    if (c.name == "copy_nt") r.copy_nt = c.value;
    if (c.name == "fp32_fma") r.fp32_fma = c.value;
    if (c.unstable) r.unstable.insert(c.name);
    if (c.threads) r.threads = std::max<int>(1, static_cast<int>(*c.threads));
    if (c.name.size() == 7 && c.name[0] == 'l' && c.name.substr(2) == "_read" && c.cache_bytes)
      r.caches.push_back({c.name, *c.cache_bytes, c.value});
  }
  std::sort(r.caches.begin(), r.caches.end(),
            [](const CacheRoof& a, const CacheRoof& b) { return a.capacity_bytes < b.capacity_bytes; });
  return r;
}

MachineRoofs with_probed_dram(MachineRoofs roofs, const model::DramProbe& probe) {
  roofs.read = probe.read_best.value_or(probe.read);
  roofs.copy_nt = probe.copy_nt_best.value_or(probe.copy_nt);
  roofs.copy.reset();
  return roofs;
}

model::JudgedAgainst judged_against(const Cost& cost, double measured_seconds, const MachineRoofs& roofs) {
  model::JudgedAgainst j;
  const Traffic traffic = traffic_of(cost);
  auto choice = choose_roof(traffic, roofs);
  // A composite run (the steps its cost declares, or its operator classes) is a
  // sequence of steps, each held by its own roof: their roof times add up (the
  // time-based roofline).
  std::vector<Step> steps;
  for (const auto& s : cost.composite_steps()) steps.push_back({s.name, s.flops.total(), s.bytes});
  if (choice)
    if (auto composite = composite_roof(steps, traffic, roofs)) choice = composite;
  if (!choice || !(measured_seconds > 0) || !(choice->seconds > 0) || !(choice->value > 0)) {
    j.reason = "the roofs this run needs were not measured";
    return j;
  }
  j.roof = choice->roof;
  j.unit = choice->unit;
  j.value = choice->value;
  j.seconds = choice->seconds;
  j.fraction = choice->seconds / measured_seconds;
  j.rule = choice->rule;
  j.level = choice->level;
  if (traffic.working_set_bytes > 0) j.working_set_bytes = traffic.working_set_bytes;
  j.composite = choice->composite;
  // The ceilings the roof's name is made of ("copy_nt+read", "fp32_fma+L3 curve by step").
  std::string name = *j.roof;
  if (name.ends_with(" by step")) name.resize(name.size() - 8);
  for (size_t start = 0; start <= name.size();) {
    const size_t end = std::min(name.find('+', start), name.size());
    if (const std::string part = name.substr(start, end - start); roofs.unstable.count(part)) j.unstable_ceilings.push_back(part);
    start = end + 1;
  }
  return j;
}

std::optional<std::string> judged_level(const model::JudgedAgainst& j) {
  if (j.level) return j.level;
  if (!j.roof) return std::nullopt;
  std::optional<std::string> first_cache;
  const std::string& name = *j.roof;
  for (size_t start = 0; start <= name.size();) {
    const size_t end = std::min(name.find('+', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part == "read" || part == "copy" || part == "copy_nt") return std::string("DRAM");
    if (!first_cache && part.size() == 7 && part[0] == 'l' && part.substr(2) == "_read") first_cache = level_of_cache(part);
    start = end + 1;
  }
  return first_cache;
}

// Two sides judged at different memory levels (issue #34): the speedup S splits into
// the bytes ratio's part, 1 / (candidate bytes / baseline bytes), and the rest, S x that
// ratio, which the two levels' rates explain (the judged roofs' rates, candidate /
// baseline, beside it). Both sides memory-bound, else nullopt.
std::optional<std::string> level_change(const model::Comparison& c, const model::Run& base, const model::Run& cand) {
  const auto& a = base.judged_against;
  const auto& b = cand.judged_against;
  if (!a || !b || !a->roof || !b->roof) return std::nullopt;
  const auto la = judged_level(*a), lb = judged_level(*b);
  if (!la || !lb || *la == *lb) return std::nullopt;
  // Only where both sides are held by their bytes does the level explain their times.
  if (a->unit != "B/s" || b->unit != "B/s") return std::nullopt;
  // The speedup the comparison's evidence gives: its paired rounds' where taken.
  const double speedup = c.paired && c.paired->speedup > 0 ? c.paired->speedup : c.speedup;
  if (!(c.bytes_ratio > 0) || !(speedup > 0) || !(a->value > 0)) return std::nullopt;
  const double from_bytes = 1 / c.bytes_ratio, from_level = speedup * c.bytes_ratio;
  return fmt::format("of which ~{:.2g}x is a change of level: {} from {}, {} from {} (the bytes ratio {:.3g} explains "
                     "{:.3g}x; the judged roofs' rates differ {:.3g}x, {:.4g} against {:.4g} GB/s)",
                     from_level, base.variant, *la, cand.variant, *lb, c.bytes_ratio, from_bytes, b->value / a->value,
                     b->value / 1e9, a->value / 1e9);
}

}  // namespace lmroof
