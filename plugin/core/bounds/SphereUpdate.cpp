#include <bdt/core/bounds/SphereUpdate.h>

#include <array>
#include <utility>

namespace bdt
{

namespace
{

// With FixedModes ≥ 0 the mode count and the row stride are compile-time constants, so the compiler unrolls
// the per-mode loop and schedules the loads of consecutive rows together.
template <bool Tight, int FixedModes>
void UpdateBatch(const float* inRows, std::uint32_t inCount, const float* inQq, std::uint32_t inModes, float inQNorm,
                 float* outSpheres)
{
    const std::uint32_t modes = FixedModes >= 0 ? std::uint32_t(FixedModes) : inModes;
    const std::uint32_t stride = NodeRowLayout::RowStride(modes);
    for (std::uint32_t i = 0; i < inCount; ++i)
        UpdateSphere<Tight>(inRows + std::size_t(i) * stride, inQq, modes, inQNorm, outSpheres + 4 * std::size_t(i));
}

constexpr std::uint32_t cSpecialised = 17; // M = 0..16

template <bool Tight, std::size_t... M>
constexpr std::array<SphereBatchKernel, sizeof...(M)> MakeTable(std::index_sequence<M...>)
{
    return {&UpdateBatch<Tight, int(M)>...};
}

constexpr auto cPaperKernels = MakeTable<false>(std::make_index_sequence<cSpecialised>());
constexpr auto cTightKernels = MakeTable<true>(std::make_index_sequence<cSpecialised>());

} // namespace

SphereBatchKernel SelectSphereKernel(bool inTight, std::uint32_t inModes)
{
    if (inModes < cSpecialised)
        return inTight ? cTightKernels[inModes] : cPaperKernels[inModes];
    return inTight ? &UpdateBatch<true, -1> : &UpdateBatch<false, -1>;
}

} // namespace bdt
