#include "Palette.h"

#include <algorithm>
#include <cmath>

namespace bdt::demo
{

Eigen::Vector3f HeatColor(float inT)
{
    // Keep in step with Heat() in shaders/deform.vert.
    static const Eigen::Vector3f stops[] = {{0.10f, 0.25f, 0.95f}, {0.10f, 0.80f, 0.90f},
                                            {0.20f, 0.80f, 0.25f}, {0.95f, 0.90f, 0.15f},
                                            {0.95f, 0.20f, 0.10f}, {0.45f, 0.02f, 0.02f}};
    const float t = (std::isnan(inT) ? 1.0f : std::clamp(inT, 0.0f, 1.0f)) * 5.0f;
    const int i = std::min(int(t), 4);
    return stops[i] + (t - float(i)) * (stops[i + 1] - stops[i]);
}

Eigen::Vector3f ToLinear(const Eigen::Vector3f& inDisplay)
{
    return inDisplay.array().max(0.0f).pow(2.2f);
}

} // namespace bdt::demo
