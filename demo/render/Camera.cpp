#include "Camera.h"

#include <algorithm>
#include <cmath>

namespace bdt::demo
{

Eigen::Vector3f OrbitCamera::Eye() const
{
    const Eigen::Vector3f offset(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                                 std::cos(pitch) * std::cos(yaw));
    return target + distance * offset;
}

Eigen::Matrix4f OrbitCamera::View() const
{
    const Eigen::Vector3f eye = Eye();
    const Eigen::Vector3f forward = (target - eye).normalized();
    const Eigen::Vector3f right = forward.cross(Eigen::Vector3f::UnitY()).normalized();
    const Eigen::Vector3f up = right.cross(forward);
    Eigen::Matrix4f view = Eigen::Matrix4f::Identity();
    view.block<1, 3>(0, 0) = right.transpose();
    view.block<1, 3>(1, 0) = up.transpose();
    view.block<1, 3>(2, 0) = -forward.transpose();
    view(0, 3) = -right.dot(eye);
    view(1, 3) = -up.dot(eye);
    view(2, 3) = forward.dot(eye);
    return view;
}

Eigen::Matrix4f OrbitCamera::Projection(float inAspect) const
{
    const float f = 1.0f / std::tan(0.5f * fovY);
    Eigen::Matrix4f projection = Eigen::Matrix4f::Zero();
    projection(0, 0) = f / std::max(inAspect, 1e-3f);
    projection(1, 1) = f;
    projection(2, 2) = (farPlane + nearPlane) / (nearPlane - farPlane);
    projection(2, 3) = 2.0f * farPlane * nearPlane / (nearPlane - farPlane);
    projection(3, 2) = -1.0f;
    return projection;
}

void OrbitCamera::Orbit(float inDx, float inDy)
{
    yaw -= 0.005f * inDx;
    pitch = std::clamp(pitch + 0.005f * inDy, -1.5f, 1.5f);
}

void OrbitCamera::Pan(float inDx, float inDy, int inViewportHeight)
{
    const Eigen::Vector3f eye = Eye();
    const Eigen::Vector3f forward = (target - eye).normalized();
    const Eigen::Vector3f right = forward.cross(Eigen::Vector3f::UnitY()).normalized();
    const Eigen::Vector3f up = right.cross(forward);
    // One pixel moves the target by the size of a pixel at the target's distance.
    const float perPixel = 2.0f * distance * std::tan(0.5f * fovY) / float(std::max(inViewportHeight, 1));
    target += perPixel * (-inDx * right + inDy * up);
}

void OrbitCamera::Zoom(float inSteps)
{
    distance = std::clamp(distance * std::pow(0.9f, inSteps), 0.2f, 400.0f);
}

void OrbitCamera::PixelRay(float inX, float inY, int inWidth, int inHeight, Eigen::Vector3f& outOrigin,
                           Eigen::Vector3f& outDirection) const
{
    const Eigen::Vector3f eye = Eye();
    const Eigen::Vector3f forward = (target - eye).normalized();
    const Eigen::Vector3f right = forward.cross(Eigen::Vector3f::UnitY()).normalized();
    const Eigen::Vector3f up = right.cross(forward);
    const float halfHeight = std::tan(0.5f * fovY);
    const float aspect = float(inWidth) / float(std::max(inHeight, 1));
    const float x = (2.0f * (inX + 0.5f) / float(std::max(inWidth, 1)) - 1.0f) * halfHeight * aspect;
    const float y = (1.0f - 2.0f * (inY + 0.5f) / float(std::max(inHeight, 1))) * halfHeight;
    outOrigin = eye;
    outDirection = (forward + x * right + y * up).normalized();
}

Frustum::Frustum(const Eigen::Matrix4f& inViewProjection)
{
    // Rows of the clip transform combined (Gribb and Hartmann): left, right, bottom, top, near, far.
    const Eigen::Matrix4f& m = inViewProjection;
    for (int axis = 0; axis < 3; ++axis)
    {
        mPlanes[2 * axis] = (m.row(3) + m.row(axis)).transpose();
        mPlanes[2 * axis + 1] = (m.row(3) - m.row(axis)).transpose();
    }
    for (Eigen::Vector4f& plane : mPlanes)
        plane /= plane.head<3>().norm();
}

bool Frustum::Intersects(const Eigen::Vector3f& inCenter, float inRadius) const
{
    for (const Eigen::Vector4f& plane : mPlanes)
        if (plane.head<3>().dot(inCenter) + plane[3] < -inRadius)
            return false;
    return true;
}

} // namespace bdt::demo
