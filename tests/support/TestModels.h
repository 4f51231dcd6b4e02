#pragma once

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/Model.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bdt::test
{

/// Random q with entries uniform in [-inAmplitude, inAmplitude].
std::vector<float> RandomQ(std::uint32_t inModes, double inAmplitude, std::mt19937& ioRandom);

/// A model from positions and triangles with a smooth basis of `inModes` fields (bdt::MakeSmoothBasis).
Model SmoothModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles, std::uint32_t inModes);

/// A built-in shape at about `inTriangles` triangles with a smooth basis.
std::shared_ptr<const BDTree> ShapeTree(const char* inShape, std::uint32_t inTriangles, std::uint32_t inModes);

/// A mesh from the assimp-testmodels package (path relative to its models folder) with a smooth basis.
std::shared_ptr<const BDTree> AssimpTree(const std::string& inRelativePath, std::uint32_t inModes);

/// Half the rest bounding-box diagonal: "the model size" that q amplitudes are scaled to.
double ModelRadius(const Model& inModel);

/// Unique vertices of the triangles under node `inNode`.
std::vector<std::uint32_t> NodeVertices(const BDTree& inTree, std::uint32_t inNode);

} // namespace bdt::test
