#pragma once

// Debug geometry of the demo: instanced translucent spheres (BD-Tree nodes, proxies), coloured lines
// (contacts and their normals), and the ground grid. Collected during a frame, drawn and cleared by `Draw`.

#include "GlObjects.h"
#include "ShaderProgram.h"

#include <Eigen/Core>
#include <vector>

namespace bdt::demo
{

/// Batches of spheres and lines for one frame. Needs the GL context it was made in.
class DebugRenderer
{
public:
    DebugRenderer();

    /// A sphere (world centre and radius, metres) in linear RGBA; alpha < 1 is blended.
    void AddSphere(const Eigen::Vector3f& inCenter, float inRadius, const Eigen::Vector4f& inColor);
    /// A line segment from `inFrom` to `inTo` (world, metres).
    void AddLine(const Eigen::Vector3f& inFrom, const Eigen::Vector3f& inTo, const Eigen::Vector4f& inColor);
    std::size_t SphereCount() const { return mSpheres.size() / 8; } ///< Spheres batched so far this frame.
    std::size_t LineCount() const { return mLines.size() / 14; }    ///< Segments batched (7 floats per end).

    /// The ground y = `inHeight` as a grid out to `inHalfSize` metres.
    void DrawGround(const Eigen::Matrix4f& inViewProjection, const Eigen::Vector3f& inEye, float inHeight,
                    float inHalfSize, const Eigen::Vector3f& inBackground);
    /// Draws the batched spheres and lines, then clears them.
    void Draw(const Eigen::Matrix4f& inViewProjection, const Eigen::Vector3f& inEye,
              const Eigen::Vector3f& inLightDirection);

private:
    ShaderProgram mSphereProgram;
    ShaderProgram mLineProgram;
    ShaderProgram mGroundProgram;
    GlVertexArray mSphereArray, mLineArray, mGroundArray;
    GlBuffer mSphereMesh, mSphereIndices, mSphereInstances, mLineBuffer;
    GLsizei mSphereIndexCount = 0;
    std::vector<float> mSpheres; // centre, radius, colour per sphere
    std::vector<float> mLines;   // position, colour per end
};

} // namespace bdt::demo
