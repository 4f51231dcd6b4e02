#pragma once

// Draws a `SampleWorld` as the demo shows it: deformable bodies deformed by the vertex shader (instanced per
// shared model, culled by their root spheres, BD-Tree paper §4), Bullet's spheres and boxes, the ground, and
// the debug views (BD-Tree spheres of a level coloured by tightness, contact proxies, contacts).

#include "render/Camera.h"
#include "render/DebugRenderer.h"
#include "app/Sample.h"
#include "render/DeformedMeshRenderer.h"

#include "core/bounds/DistanceHierarchy.h"

#include <bdt/samples/SampleWorld.h>
#include <bdt/core/bounds/BDAabbTree.h>
#include <map>
#include <memory>

class btRigidBody;

namespace bdt::demo
{

/// Which bounds the level view draws.
enum class EBoundView : int
{
    Spheres,           ///< The BD-Tree's spheres as the narrowphase uses them (§3.2).
    Boxes,             ///< BD-AABB boxes (§3.5), updated from q: wireframe, axis-aligned in the body's frame.
    DistanceHierarchy, ///< Distance Hierarchy regions (Madera et al. 2007): from vertices deformed on the CPU.
};

/// What the view draws.
struct ViewOptions
{
    bool meshes = true;   ///< The bodies themselves.
    bool spheres = false; ///< The bounds (`boundView`) of `sphereLevel` of every drawn deformable.
    int sphereLevel = 3;
    EBoundView boundView = EBoundView::Spheres;
    /// Colour bounds by their growth over rest (R'/R, or the largest h'/h of a box; blue near 1, dark red at 1.44
    /// and above); else grey.
    bool tightness = true;
    float sphereAlpha = 0.6f; ///< Opacity of the spheres (1: opaque, as in the paper's figures).
    /// Colour deformable bodies by how far each vertex moved, |U_i q| (in the vertex shader), with the sphere
    /// view's palette: dark blue at rest, dark red at `displacementRange` metres and beyond.
    bool displacement = false;
    float displacementRange = 0.05f;
    /// Colour every body by each vertex's speed over the last physics step (its motion vector over the step,
    /// `World::VertexMotion`, in the vertex shader), same palette: dark red at `motionRange` m/s and beyond.
    /// Wins over `displacement`.
    bool motion = false;
    float motionRange = 2.0f;
    float stepSeconds = 1.0f / 60.0f; ///< The physics step (s), for the motion view's speeds.
    bool proxies = false;            ///< The contact proxies in contact this step (`World::DebugDraw`).
    bool contacts = false;           ///< Contact points and normals.
    bool cull = true;                ///< Frustum culling with each body's root sphere.
    std::size_t maxSpheres = 200000; ///< Sphere view budget per frame.
};

/// Figures of the last frame.
struct ViewStats
{
    std::size_t bodies = 0;                ///< Bodies in the world, and the sample's own meshes.
    std::size_t drawn = 0;                 ///< Drawn after culling.
    std::size_t culled = 0;                ///< Outside the view frustum.
    std::size_t spheres = 0;               ///< Debug spheres drawn.
    std::size_t lines = 0;                 ///< Debug lines drawn.
    std::size_t bounds = 0;                ///< Bounds drawn by the level view (spheres, boxes or regions).
    std::size_t sampleMeshes = 0;          ///< Meshes the sample deforms and draws itself (`SceneDecoration`).
    /// Vertices deformed on the CPU for the Distance Hierarchy view (never for display).
    std::uint64_t boundViewDeformedVertices = 0;
    float sphereTightnessMax = 1.0f;       ///< Largest R'/R of the sphere view's spheres (1: none drawn).
    float sphereTightnessMean = 1.0f;      ///< Mean R'/R of the sphere view's spheres (1: none drawn).
    std::uint64_t cpuDeformedVertices = 0; ///< Summed over the renderers: 0 (the shader deforms).
    std::uint64_t frameUploadBytes = 0;    ///< Per-instance data sent this frame (transforms, colours, q).
    std::uint64_t meshBytes = 0;           ///< Rest meshes and bases on the GPU.
    std::size_t models = 0;                ///< Distinct models on the GPU.
};

/// Renders worlds; keeps one `DeformedMeshRenderer` per model it has met. Needs a current GL context.
class SceneView
{
public:
    SceneView();

    /// Draws `ioWorld` into the bound framebuffer of `inWidth` × `inHeight` pixels from `inCamera`.
    /// `inPicked` (may be null) is highlighted.
    /// `inDecoration` (may be null): the sample's own meshes and lines, drawn with the world.
    void Render(SampleWorld& ioWorld, const OrbitCamera& inCamera, int inWidth, int inHeight,
                const ViewOptions& inOptions, const btRigidBody* inPicked,
                const SceneDecoration* inDecoration = nullptr);
    const ViewStats& Stats() const { return mStats; }
    /// Forgets the models of a world that is gone (their GPU copies are freed).
    void Clear()
    {
        mRenderers.clear();
        mLevelNodes.clear();
        mBoxTrees.clear();
        mRegionTrees.clear();
    }

    static constexpr float cBackground[3] = {0.52f, 0.60f, 0.70f}; ///< Linear RGB of the sky.

private:
    struct ModelEntry
    {
        std::shared_ptr<const void> owner; // keeps the model alive
        std::unique_ptr<DeformedMeshRenderer> renderer;
        std::vector<MeshInstance> instances;
    };
    ModelEntry& EntryFor(const Model* inModel, std::shared_ptr<const void> inOwner);
    /// Lists this frame's instances of every drawn body (deformables, spheres, boxes) not culled by the frustum.
    void GatherInstances(SampleWorld& ioWorld, const Frustum& inFrustum, const ViewOptions& inOptions,
                         const btRigidBody* inPicked);
    /// Draws the listed instances with the mesh program, and gathers the renderers' counts.
    void DrawInstances(const Eigen::Matrix4f& inViewProjection, const Eigen::Vector3f& inEye,
                       const Eigen::Vector3f& inLight, const ViewOptions& inOptions);
    void AddSphereView(SampleWorld& ioWorld, const Frustum& inFrustum, const ViewOptions& inOptions);
    /// A bound of the level view: the growth colour, drawn as a sphere or (with `inAxes`) a box.
    void AddBound(const Vec3d& inCenter, const Vec3d& inHalfExtents, const Mat3d* inAxes, float inGrowth,
                  const ViewOptions& inOptions);
    /// The BD-AABB rows and the Distance Hierarchy of a tree, made on first use and kept.
    const BDAabbTree& BoxesOf(const std::shared_ptr<const BDTree>& inTree);
    const DistanceHierarchy& RegionsOf(const std::shared_ptr<const BDTree>& inTree);
    /// The nodes of `inTree` at `inLevel`, and its leaves above it: listed once, then reused every frame.
    const std::vector<std::uint32_t>& LevelNodes(const BDTree& inTree, std::uint32_t inLevel);

    std::map<const Model*, ModelEntry> mRenderers;
    std::map<std::pair<const BDTree*, std::uint32_t>, std::vector<std::uint32_t>> mLevelNodes;
    std::map<const BDTree*, std::unique_ptr<const BDAabbTree>> mBoxTrees;
    std::map<const BDTree*, std::unique_ptr<const DistanceHierarchy>> mRegionTrees;
    std::vector<Vec3f> mDeformed; ///< A body's vertices for the Distance Hierarchy view.
    std::shared_ptr<const Model> mUnitSphere, mUnitBox; // rigid primitives, M = 0
    std::unique_ptr<ShaderProgram> mMeshProgram;
    std::unique_ptr<DebugRenderer> mDebug;
    ViewStats mStats;
};

/// The tightness colour of the paper's sphere figures for R'/R = `inRatio` (display sRGB, `HeatColor`): dark
/// blue at 1, through cyan, green, yellow and red, to dark red at 1.44 and above (paper, Figure 4).
Eigen::Vector3f TightnessColor(float inRatio);

} // namespace bdt::demo
