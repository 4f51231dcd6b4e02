#pragma once

#include <cstdint>

namespace bdt
{

/// What `World::DebugDraw` draws.
struct DebugDrawSettings
{
    bool spheres = false; ///< Updated spheres of the tree level `sphereLevel`.
    std::uint32_t sphereLevel = 3;
    bool proxies = true;  ///< The contact proxies touched this step (spheres at level L in contact).
    bool contacts = true; ///< Contact points and normals of deformable bodies.
};

/// The name `DebugDrawSettings` had before 0.2.
using DebugDrawOptions [[deprecated("renamed DebugDrawSettings")]] = DebugDrawSettings;

} // namespace bdt
