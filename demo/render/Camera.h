#pragma once

// The demo's orbit camera and its view frustum.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>

namespace bdt::demo
{

/// A camera orbiting a target point: yaw about +Y, pitch above the horizon, distance, in metres and radians.
struct OrbitCamera
{
    Eigen::Vector3f target = Eigen::Vector3f(0.0f, 0.5f, 0.0f);
    float yaw = 0.6f;      ///< Radians about +Y.
    float pitch = 0.35f;   ///< Radians above the horizon, kept within (−π/2, π/2).
    float distance = 6.0f; ///< Metres from the target.
    float fovY = 0.8f;     ///< Vertical field of view, radians.
    float nearPlane = 0.05f;
    float farPlane = 500.0f;

    Eigen::Vector3f Eye() const;
    Eigen::Matrix4f View() const;
    Eigen::Matrix4f Projection(float inAspect) const;

    /// Mouse motion in pixels: orbit (left drag), pan in the view plane (right or middle drag), zoom (wheel
    /// steps, each 10%).
    void Orbit(float inDx, float inDy);
    void Pan(float inDx, float inDy, int inViewportHeight);
    void Zoom(float inSteps);

    /// The world ray through a pixel (origin at the eye, unit direction), for picking.
    void PixelRay(float inX, float inY, int inWidth, int inHeight, Eigen::Vector3f& outOrigin,
                  Eigen::Vector3f& outDirection) const;
};

/// The six planes of a view-projection's frustum, normals inward: a point p is inside when n·p + d ≥ 0 for
/// all.
class Frustum
{
public:
    explicit Frustum(const Eigen::Matrix4f& inViewProjection);
    /// False only when the sphere lies wholly outside one plane (conservative: may keep a few outside).
    bool Intersects(const Eigen::Vector3f& inCenter, float inRadius) const;

private:
    std::array<Eigen::Vector4f, 6> mPlanes;
};

} // namespace bdt::demo
