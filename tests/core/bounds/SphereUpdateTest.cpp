#include <bdt/core/bounds/SphereUpdate.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace bdt
{
namespace
{

// Reference: eq. 5 and 7 (and the tight minimum) evaluated term by term in double.
void ReferenceUpdate(const float* inRow, const std::vector<float>& inQ, bool inTight, double* outSphere)
{
    const std::uint32_t m = static_cast<std::uint32_t>(inQ.size());
    double norm2 = 0.0;
    for (int k = 0; k < 4; ++k)
        outSphere[k] = inRow[k];
    for (std::uint32_t j = 0; j < m; ++j)
    {
        for (int k = 0; k < 3; ++k)
            outSphere[k] += double(inRow[4 + 4 * j + k]) * inQ[j];
        outSphere[3] += double(inRow[4 + 4 * j + 3]) * std::abs(inQ[j]);
        norm2 += double(inQ[j]) * inQ[j];
    }
    if (inTight)
        outSphere[3] = std::min(outSphere[3], inRow[3] + double(inRow[NodeRowLayout::TightOffset(m)]) * std::sqrt(norm2));
}

TEST(SphereUpdate, EverySpecialisedKernelComputesEquationsFiveAndSeven)
{
    std::mt19937 random(17);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (std::uint32_t m = 0; m <= 24; ++m)
    {
        const std::uint32_t stride = NodeRowLayout::RowStride(m);
        const std::uint32_t count = 7;
        std::vector<float> rows(stride * count);
        for (float& value : rows)
            value = uniform(random);
        for (std::uint32_t i = 0; i < count; ++i)
        {
            float* row = rows.data() + i * stride;
            row[3] = std::abs(row[3]) + 1.0f; // radii and growth factors are non-negative
            for (std::uint32_t j = 0; j < m; ++j)
                row[4 + 4 * j + 3] = std::abs(row[4 + 4 * j + 3]);
            row[NodeRowLayout::TightOffset(m)] = std::abs(row[NodeRowLayout::TightOffset(m)]);
        }
        std::vector<float> q(m), qq(4 * m);
        double norm2 = 0.0;
        for (std::uint32_t j = 0; j < m; ++j)
        {
            q[j] = uniform(random);
            qq[4 * j] = qq[4 * j + 1] = qq[4 * j + 2] = q[j];
            qq[4 * j + 3] = std::abs(q[j]);
            norm2 += double(q[j]) * q[j];
        }
        for (bool tight : {false, true})
        {
            std::vector<float> out(4 * count);
            SelectSphereKernel(tight, m)(rows.data(), count, qq.data(), m, float(std::sqrt(norm2)), out.data());
            for (std::uint32_t i = 0; i < count; ++i)
            {
                double expected[4];
                ReferenceUpdate(rows.data() + i * stride, q, tight, expected);
                for (int k = 0; k < 4; ++k)
                    EXPECT_NEAR(out[4 * i + k], expected[k], 1e-5 * (1.0 + std::abs(expected[k])))
                        << "M " << m << " node " << i << " component " << k << (tight ? " tight" : " paper");
            }
        }
    }
}

} // namespace
} // namespace bdt
