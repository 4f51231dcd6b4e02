#pragma once

#include <cmath>
#include <cstdint>

namespace bdt
{

/// Skin bands of a skin list (`ProxyPairCache`, `PrimitivePairCache`): an entry kept within reach + s is also
/// filed under the first band k (1..cSkinBands) whose widening k·s/cSkinBands of the reach covered its gap
/// when the list was made. A later query's bound on how far any gap can have closed since, when within band
/// k's widening, proves by the lists' own argument that entries of later bands are still out of reach: only
/// bands 1..k need testing. Bodies at rest have a bound near 0 and test the first band only. O(1) each.
inline constexpr std::uint32_t cSkinBands = 4;

/// The widening of band `inBand` (1..cSkinBands) beyond the reach, world units: k·s/cSkinBands, s itself for
/// the last band.
inline double SkinBandWidening(double inSkin, std::uint32_t inBand)
{
    return inSkin * (double(inBand) / double(cSkinBands));
}

/// The first band whose widening covers `inBound` (world units), or 0 if none does (the list cannot answer).
inline std::uint32_t SkinBandForBound(double inSkin, double inBound)
{
    for (std::uint32_t band = 1; band <= cSkinBands; ++band)
        if (inBound <= SkinBandWidening(inSkin, band))
            return band;
    return 0;
}

/// The band of an entry that was `inGap` (world units, the distance beyond the reach) out of reach when the
/// list was made, computed with rounding far below `inMargin`: taken low by the margin, since a band too low
/// only tests the entry more often and one too high could miss it. 1 for a gap ≤ 0 or NaN.
inline std::uint32_t SkinBandOfGap(double inSkin, double inGap, double inMargin)
{
    const double bands = std::ceil((inGap - inMargin) / inSkin * double(cSkinBands));
    if (!(bands > 1.0))
        return 1;
    return bands >= double(cSkinBands) ? cSkinBands : std::uint32_t(bands);
}

} // namespace bdt
