// decode pair: every CPU combo against the float64 reference on fresh random
// inputs (including split-context runs), the cost model against numbers worked out
// by hand, kv_heads completion and bad shapes rejected.
#include <gtest/gtest.h>

#include <cstdlib>

#include <tuple>
#include <vector>

#include "common/host_data.h"
#include "decode/decode.h"
#include "registry.h"
#include "reference_check.h"
#include "test_support.h"

namespace lmroof {
namespace {

using Param = test::KernelParam;

Shape dec(int64_t batch, int64_t q_heads, int64_t head_dim, int64_t context) {
  return {{"batch", batch}, {"q_heads", q_heads}, {"head_dim", head_dim}, {"context", context}};
}
Shape dec(int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim, int64_t context) {
  return {{"batch", batch}, {"q_heads", q_heads}, {"kv_heads", kv_heads}, {"head_dim", head_dim}, {"context", context}};
}

const char* const kVariants[] = {"mha", "gqa", "mqa"};
const char* const kImpls[] = {"naive", "grouped", "blas"};

// Awkward on purpose: one position, one head, head_dim not a multiple of 16,
// contexts that are not multiples of the 64-position block, q_heads not a multiple
// of 8 (gqa then groups by 6, 4 or 1), and shapes with few work items so the
// context is split (see SplitsAreExercised).
const Shape kShapes[] = {dec(1, 1, 7, 1),     dec(2, 8, 64, 256),   dec(1, 16, 100, 1000), dec(3, 12, 33, 70),
                         dec(1, 32, 128, 2048), dec(1, 4, 16, 1537), dec(2, 3, 5, 65)};

std::vector<Param> kernel_params() {
  std::vector<Param> params;
  for (const char* variant : kVariants)
    for (const char* impl : kImpls)
      for (const auto& shape : kShapes) params.emplace_back(variant, impl, shape);
  // gqa shapes with kv_heads given, each at every implementation level
  const auto gqa_at_every_level = [&](std::initializer_list<Shape> shapes) {
    for (const char* impl : kImpls)
      for (const auto& shape : shapes) params.emplace_back("gqa", impl, shape);
  };
  // gqa with a given kv_heads (group 4, group 1 and one kv head)
  gqa_at_every_level({dec(2, 12, 3, 48, 300), dec(1, 6, 6, 32, 129), dec(1, 6, 1, 32, 600)});
  // The vectorized kernels' edges: group sizes 1, 4, 8, 32 (and 48 and 80: four
  // vectors of query lanes, and more heads than the fast path takes), head_dim 64,
  // 96, 128, contexts that end mid-tile and mid-block, one head, split runs.
  gqa_at_every_level({dec(1, 1, 1, 128, 333), dec(2, 3, 3, 96, 67), dec(2, 8, 2, 64, 130),
                      dec(1, 16, 2, 128, 1500), dec(1, 32, 1, 96, 777), dec(1, 32, 1, 128, 1025),
                      dec(1, 48, 1, 64, 200), dec(1, 80, 1, 16, 100), dec(3, 8, 1, 64, 13)});
  // The two-pass kernel of groups under 4 heads (MHA, groups of 2 and 3): contexts
  // over one 2048-position block with a tail, head_dim 128 (output rows in
  // registers) and 48 or 80 (output rows in the scratch), unsplit and split.
  gqa_at_every_level({dec(2, 16, 16, 128, 4500), dec(1, 6, 3, 128, 2100), dec(1, 6, 2, 128, 2049),
                      dec(2, 4, 2, 48, 2500), dec(1, 3, 1, 80, 4097)});
  // Groups of 4 (score tiles of K pairs, score_tile_pairs): head_dim 128 and 64
  // (12-key tiles), 40 and 8 (6-key tiles, a 1-key tail), contexts past one block
  // with a tail, split and unsplit.
  gqa_at_every_level({dec(1, 8, 2, 128, 700), dec(2, 16, 4, 64, 531), dec(1, 4, 1, 40, 263), dec(3, 4, 1, 8, 37)});
  // Groups of 5-8 (16-lane score tiles of K pairs with AVX-512, score_tile_pairs16):
  // groups of 7, 5 and 8, head_dim 128 and 64 (12-key tiles), 40 and 8 (6-key tiles,
  // a 1-key tail), split and unsplit.
  gqa_at_every_level({dec(1, 7, 1, 128, 700), dec(2, 10, 2, 64, 531), dec(1, 8, 1, 40, 263), dec(2, 16, 2, 8, 37)});
  // Groups over 8 on the host's vectors, whose tiles depend on its registers (with
  // AVX2: 2, 4 and 8 query vectors of 8 lanes, 6, 2 and 1 keys per score tile; with
  // AVX-512: 1, 2 and 4 vectors of 16): groups of 12, 16, 24, 40 and 64, head_dim
  // 128, 64 and 72 (a multiple of 8, not of 16), contexts of one position, one tile
  // and a tail, split and unsplit.
  gqa_at_every_level({dec(1, 12, 1, 64, 300), dec(2, 16, 1, 128, 517), dec(1, 24, 1, 128, 700),
                      dec(1, 40, 1, 72, 150), dec(1, 64, 1, 128, 1031), dec(2, 64, 2, 64, 7),
                      dec(2, 32, 4, 128, 1), dec(1, 32, 1, 128, 3), dec(1, 16, 1, 40, 2)});
  return params;
}

class DecodeKernels : public ::testing::TestWithParam<Param> {};

TEST_P(DecodeKernels, MatchesFloat64Reference) {
  EXPECT_TRUE(test::check_against_reference("decode", GetParam()).passed());
}

INSTANTIATE_TEST_SUITE_P(Cpu, DecodeKernels, ::testing::ValuesIn(kernel_params()), test::param_name);

// Groups of 5-8 run the 8- or the 16-lane score tile, whichever this core runs
// faster (timed once per process with AVX-512; the 16-lane one with AVX2): the
// other one is forced here, so both are checked on every AVX host (on others the
// variable changes nothing).
TEST(DecodeKernels, BothScoreTilesOfGroupsOf5To8MatchTheReference) {
  for (const char* lanes : {"8", "16"}) {
    ASSERT_EQ(setenv("LMROOF_DECODE_SCORE_TILE", lanes, 1), 0);
    for (const auto& shape : {dec(1, 7, 1, 128, 700), dec(2, 10, 2, 64, 531), dec(1, 8, 1, 40, 263),
                              dec(2, 16, 2, 8, 37), dec(1, 32, 4, 128, 1500), dec(1, 6, 1, 72, 13),
                              dec(2, 16, 2, 128, 1)}) {
      RunSpec spec{"decode", "gqa", "grouped", Backend::cpu, DType::fp32, shape};
      auto workload = make_workload(spec);
      const uint64_t seed = test::fresh_seed();
      const Validation v = workload->validate(seed);
      EXPECT_TRUE(v.passed()) << lanes << " lanes, " << spec.bench_name() << " seed " << seed << ": rel error "
                              << v.rel_error << " > " << v.tolerance;
    }
  }
  unsetenv("LMROOF_DECODE_SCORE_TILE");
}

TEST(DecodeSplits, SplitsAreExercised) {
  // The kernel tests above include split runs: check which.
  const auto splits = [](const char* variant, decode::Impl impl, const Shape& s) {
    const auto d = decode::dims_of(decode::complete_shape(decode::parse_kind(variant), s));
    return decode::context_splits(Backend::cpu, impl, d);
  };
  // B=1, Hq=32, L=2048: grouped mqa has 1 item -> min(32, ceil(2048/512)=4) = 4 pieces;
  // grouped gqa has 4 items -> min(8, 4) = 4; naive has 32 items -> no split.
  EXPECT_EQ(splits("mqa", decode::Impl::grouped, dec(1, 32, 128, 2048)), 4);
  EXPECT_EQ(splits("gqa", decode::Impl::grouped, dec(1, 32, 128, 2048)), 4);
  EXPECT_EQ(splits("mqa", decode::Impl::naive, dec(1, 32, 128, 2048)), 1);
  EXPECT_EQ(splits("mha", decode::Impl::grouped, dec(1, 32, 128, 2048)), 1);
  // B=1, Hq=4, L=1537: every level has <= 4 items -> min(>= 8, ceil(1537/512)=4) = 4 pieces of 385, 385, 385, 382
  EXPECT_EQ(splits("mha", decode::Impl::naive, dec(1, 4, 16, 1537)), 4);
  EXPECT_EQ(splits("gqa", decode::Impl::grouped, dec(1, 4, 16, 1537)), 4);
  // B=1, Hq=16, L=1000: grouped mqa, 1 item -> min(32, 2) = 2 pieces of 500
  EXPECT_EQ(splits("mqa", decode::Impl::grouped, dec(1, 16, 100, 1000)), 2);
  // the default suite's MQA: B=4 -> 4 items, wanted 8; L=8192 allows 16, L=1024 allows 2
  EXPECT_EQ(splits("mqa", decode::Impl::grouped, dec(4, 32, 128, 8192)), 8);
  EXPECT_EQ(splits("mqa", decode::Impl::grouped, dec(4, 32, 128, 1024)), 2);
  // short contexts are never split; CUDA counts no split for now
  EXPECT_EQ(splits("mqa", decode::Impl::grouped, dec(1, 8, 64, 512)), 1);
  EXPECT_EQ(decode::context_splits(Backend::cuda, decode::Impl::grouped, {1, 32, 1, 128, 8192}), 1);
}

TEST(DecodeKernelsRun, RepeatedRunsGiveTheSameAnswer) {
  // The benchmark runs the kernel many times on the same buffers; a split run
  // reuses its partials. Two runs over stale out/partials must still be right.
  const uint64_t seed = test::fresh_seed();
  for (const auto impl : {decode::Impl::naive, decode::Impl::grouped, decode::Impl::blas}) {
    const decode::Dims d{1, 8, 1, 40, 1200};  // MQA; grouped splits into 3 pieces
    std::vector<float> q(d.batch * d.q_heads * d.head_dim), k(d.batch * d.kv_heads * d.context * d.head_dim),
        v(k.size()), out(q.size()), partials(decode::cpu_partial_floats(impl, d));
    fill_uniform(q, seed);
    fill_uniform(k, seed + 1);
    fill_uniform(v, seed + 2);
    poison(out);
    poison(partials);
    for (int run = 0; run < 2; ++run) decode::cpu_decode(impl, d, q.data(), k.data(), v.data(), out.data(), partials.data());
    std::vector<double> ref(out.size());
    decode::reference(d, q, k, v, ref);
    EXPECT_LE(relative_error<float>(out, ref), tolerance_for(DType::fp32)) << "seed " << seed;
  }
  EXPECT_EQ(decode::context_splits(Backend::cpu, decode::Impl::grouped, {1, 8, 1, 40, 1200}), 3);
}

TEST(DecodeCost, HandComputed) {
  // B=1, Hq=4, Hkv=2 (group 2), dh=8, L=16, fp32; heads = B*Hq = 4.
  // matrix  = heads * 4*L*dh = 4 * 512 = 2048
  // vector  = heads * (3*L + 2*dh) = 4 * (48 + 16) = 256
  // special = heads * L = 64
  // minimum = (2*heads*dh + 2*B*Hkv*L*dh) * 4 = (64 + 512) * 4 = 2304
  // naive   = (2*heads*dh + 2*heads*L*dh) * 4 = (64 + 1024) * 4 = 4352
  const decode::Dims d{1, 4, 2, 8, 16};
  const auto g = decode::cost(decode::Impl::grouped, d, 1, 4);
  EXPECT_DOUBLE_EQ(g.flops.matrix, 2048);
  EXPECT_DOUBLE_EQ(g.flops.vector, 256);
  EXPECT_DOUBLE_EQ(g.flops.special, 64);
  EXPECT_DOUBLE_EQ(g.bytes_minimum, 2304);
  EXPECT_DOUBLE_EQ(g.bytes_model, 2304);
  const auto n = decode::cost(decode::Impl::naive, d, 1, 4);
  EXPECT_DOUBLE_EQ(n.flops.total(), g.flops.total());
  EXPECT_DOUBLE_EQ(n.bytes_minimum, 2304);
  EXPECT_DOUBLE_EQ(n.bytes_model, 4352);
  // 3 pieces: partials = 2 * heads * 3 * (dh + 2) * 4 bytes = 2 * 4 * 3 * 10 * 4 = 960
  EXPECT_DOUBLE_EQ(decode::cost(decode::Impl::grouped, d, 3, 4).bytes_model, 2304 + 960);
  EXPECT_DOUBLE_EQ(decode::cost(decode::Impl::naive, d, 3, 4).bytes_model, 4352 + 960);
  // bf16: minimum = (64 + 512) * 2 = 1152; partials stay fp32
  EXPECT_DOUBLE_EQ(decode::cost(decode::Impl::grouped, d, 1, 2).bytes_minimum, 1152);
  EXPECT_DOUBLE_EQ(decode::cost(decode::Impl::grouped, d, 3, 2).bytes_model, 1152 + 960);
  // blas: the 4 x 16 fp32 scores are written, read and rewritten by the softmax, read
  // by the second GEMM: 4 * 64 * 4 = 1024 bytes more; never split
  const auto b = decode::cost(decode::Impl::blas, d, 1, 4);
  EXPECT_DOUBLE_EQ(b.bytes_model, 2304 + 1024);
  EXPECT_DOUBLE_EQ(b.bytes_written, (4 * 8) * 4 + 512);  // out and half the scores' round trip
  EXPECT_DOUBLE_EQ(b.flops.total(), g.flops.total());
  EXPECT_EQ(decode::context_splits(Backend::cpu, decode::Impl::blas, {1, 8, 1, 40, 1200}), 1);
  // naive re-reads each kv head's K and V g - 1 = 1 more time: 2 * (4 - 2) * 16 * 8 * 4
  EXPECT_DOUBLE_EQ(n.bytes_reread, 2048);
  EXPECT_DOUBLE_EQ(n.reread_set_bytes, 2 * 16 * 8 * 4);
  EXPECT_DOUBLE_EQ(g.bytes_reread, 0);
  EXPECT_DOUBLE_EQ(g.bytes_read + g.bytes_written, g.bytes_model);
  EXPECT_DOUBLE_EQ(g.bytes_written, 4 * 8 * 4);  // out only
  // MHA (Hkv = Hq): naive and grouped move the same bytes
  const decode::Dims mha{1, 4, 4, 8, 16};
  EXPECT_DOUBLE_EQ(decode::cost(decode::Impl::naive, mha, 1, 4).bytes_model,
                   decode::cost(decode::Impl::grouped, mha, 1, 4).bytes_model);
}

TEST(DecodeCost, RegistryAgrees) {
  // default-suite MQA at L=8192, grouped: 8 pieces.
  // minimum = (2*128*128 + 2*4*1*8192*128) * 4 = (32768 + 8388608) * 4
  // partials = 2 * 128 * 8 * 130 * 4
  RunSpec spec{"decode", "mqa", "grouped", Backend::cpu, DType::fp32, dec(4, 32, 128, 8192)};
  const Cost c = cost_of(spec);
  EXPECT_DOUBLE_EQ(c.bytes_minimum, (32768.0 + 8388608.0) * 4);
  EXPECT_DOUBLE_EQ(c.bytes_model, c.bytes_minimum + 2.0 * 128 * 8 * 130 * 4);
  EXPECT_DOUBLE_EQ(c.flops.matrix, 128.0 * 4 * 8192 * 128);
}

TEST(DecodeBlas, IsCpuOnly) {
  // The CUDA suite leaves the blas level out and the factory refuses it with a reason.
  const auto& pair = find_pair("decode");
  EXPECT_TRUE(pair.runs_on(Backend::cpu, "blas"));
  EXPECT_FALSE(pair.runs_on(Backend::cuda, "blas"));
  EXPECT_TRUE(pair.runs_on(Backend::cuda, "grouped"));
  EXPECT_THROW(make_workload({"decode", "mqa", "blas", Backend::cuda, DType::bf16, dec(1, 8, 64, 8)}),
               std::invalid_argument);
}

TEST(DecodeShape, FillsKvHeads) {
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 32), 4);
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 64), 8);
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 12), 2);  // group 6
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 4), 1);   // group 4
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 7), 1);   // group 7
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 11), 11); // prime above 8: group 1
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::gqa, 1), 1);
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::mha, 32), 32);
  EXPECT_EQ(decode::default_kv_heads(decode::Kind::mqa, 32), 1);

  const auto& pair = find_pair("decode");
  EXPECT_EQ(pair.complete_shape("gqa", dec(4, 32, 128, 1024)), dec(4, 32, 4, 128, 1024));
  EXPECT_EQ(pair.complete_shape("mha", dec(4, 32, 128, 1024)), dec(4, 32, 32, 128, 1024));
  EXPECT_EQ(pair.complete_shape("mqa", dec(4, 32, 128, 1024)), dec(4, 32, 1, 128, 1024));
  // a given kv_heads that fits is kept
  EXPECT_EQ(pair.complete_shape("gqa", dec(1, 32, 16, 64, 8)), dec(1, 32, 16, 64, 8));
  EXPECT_EQ(pair.complete_shape("mha", dec(1, 8, 8, 64, 8)), dec(1, 8, 8, 64, 8));
  EXPECT_EQ(pair.complete_shape("mqa", dec(1, 8, 1, 64, 8)), dec(1, 8, 1, 64, 8));
  // key order: batch, q_heads, kv_heads, head_dim, context (the benchmark name)
  const auto full = pair.complete_shape("gqa", {{"context", 9}, {"head_dim", 4}, {"q_heads", 8}, {"batch", 1}});
  EXPECT_EQ(full.bench_suffix(), "batch:1/q_heads:8/kv_heads:1/head_dim:4/context:9");
}

TEST(DecodeShape, RejectsBadShapes) {
  const auto& pair = find_pair("decode");
  // kv_heads contradicting the variant, or not dividing q_heads
  EXPECT_THROW(pair.complete_shape("mha", dec(1, 32, 4, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mqa", dec(1, 32, 2, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("gqa", dec(1, 32, 5, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("gqa", dec(1, 32, 64, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("gqa", dec(1, 32, 0, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("gqa", dec(1, 32, -4, 64, 8)), std::invalid_argument);
  // zero, negative, missing
  EXPECT_THROW(pair.complete_shape("mha", dec(0, 8, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", dec(1, 8, -64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", dec(1, 8, 64, 0)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", dec(1, 0, 64, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", {{"batch", 1}, {"q_heads", 8}, {"head_dim", 64}}), std::invalid_argument);
  // absurd: a K cache of 2^20 * 1 * 2^12 * 2^12 = 2^44 elements; q of 2^40
  EXPECT_THROW(pair.complete_shape("mqa", dec(1 << 20, 1, 1 << 12, 1 << 12)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mqa", dec(1 << 20, 1 << 20, 1, 1)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", dec(1, 8, 64, int64_t{1} << 30)), std::invalid_argument);
  // unknown variant / impl
  EXPECT_THROW(make_workload({"decode", "mla", "grouped", Backend::cpu, DType::fp32, dec(1, 8, 64, 8)}),
               std::invalid_argument);
  EXPECT_THROW(make_workload({"decode", "gqa", "fused", Backend::cpu, DType::fp32, dec(1, 8, 64, 8)}),
               std::invalid_argument);
}

}  // namespace
}  // namespace lmroof
