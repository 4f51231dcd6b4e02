// The sandbox's colour scale: its ends, clamping, continuity at the stops, and NaN.

#include "render/Palette.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace bdt::demo
{
namespace
{

TEST(Palette, EndsAreDarkBlueAndDarkRedAndOutsideIsClamped)
{
    const Eigen::Vector3f blue = HeatColor(0.0f), red = HeatColor(1.0f);
    EXPECT_GT(blue.z(), 0.9f);
    EXPECT_LT(blue.x(), 0.2f);
    EXPECT_GT(red.x(), 0.4f);
    EXPECT_LT(red.y(), 0.1f);
    EXPECT_LT(red.z(), 0.1f);
    EXPECT_EQ(HeatColor(-3.0f), blue);
    EXPECT_EQ(HeatColor(7.0f), red);
    EXPECT_EQ(HeatColor(std::numeric_limits<float>::quiet_NaN()), red);
    EXPECT_EQ(HeatColor(std::numeric_limits<float>::infinity()), red);
}

TEST(Palette, ContinuousAcrossTheStops)
{
    // Steps of 1e-4 in t never jump by more than a few 1e-3 in any channel.
    float largest = 0.0f;
    for (int i = 0; i < 10000; ++i)
    {
        const float t = float(i) / 10000.0f;
        largest = std::max(largest, (HeatColor(t + 1e-4f) - HeatColor(t)).cwiseAbs().maxCoeff());
    }
    EXPECT_LT(largest, 5e-3f);
    // ... and it does change: the middle is neither end.
    EXPECT_GT((HeatColor(0.5f) - HeatColor(0.0f)).norm(), 0.5f);
    EXPECT_GT((HeatColor(0.5f) - HeatColor(1.0f)).norm(), 0.5f);
}

TEST(Palette, ToLinearIsThe22PowerAndClampsNegatives)
{
    const Eigen::Vector3f linear = ToLinear(Eigen::Vector3f(0.5f, 1.0f, -0.2f));
    EXPECT_NEAR(linear.x(), std::pow(0.5f, 2.2f), 1e-6f);
    EXPECT_FLOAT_EQ(linear.y(), 1.0f);
    EXPECT_FLOAT_EQ(linear.z(), 0.0f);
}

} // namespace
} // namespace bdt::demo
