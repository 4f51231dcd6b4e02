#pragma once

// The sandbox's one colour scale, used for the sphere view's tightness R'/R (as in the BD-Tree paper's
// figures) and for the meshes' displacement |U q| (shaders/deform.vert holds the same stops).

#include <Eigen/Core>

namespace bdt::demo
{

/// Display (sRGB) colour of `inT` on the scale: dark blue at 0, through cyan, green, yellow and red, to dark
/// red at 1; `inT` is clamped to [0, 1] and NaN counts as 1 (a non-finite measure shows as the worst).
/// Piecewise linear between six stops, continuous.
Eigen::Vector3f HeatColor(float inT);

/// sRGB display value to linear light (the shaders shade in linear light and encode with a 1/2.2 power, so
/// this is the 2.2 power that undoes it).
Eigen::Vector3f ToLinear(const Eigen::Vector3f& inDisplay);

} // namespace bdt::demo
