#pragma once

// The sandbox's scenes: each a `Sample` that builds itself into a `SampleWorld` and registers itself at file
// scope (`RegisterSample`), so adding a scene touches no central table.

#include <bdt/samples/SampleWorld.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bdt::demo
{

/// The displacement basis of the bodies a sample bakes on the fly (`BakeAsset`).
enum class EBasis : std::uint8_t
{
    Smooth, ///< Smooth procedural fields (`MakeSmoothModel`): any mesh, baked in a blink.
    Modal,  ///< The solid's vibration modes (`MakeModalModel` at `bdt-bake --basis modal`'s defaults): seconds.
};

/// What the command line passes to every sample.
struct SampleOptions
{
    std::uint32_t count = 0; ///< Bodies to create; 0: the sample's default.
    std::string model; ///< A mesh file (any Assimp format) for the samples that take one; empty: built-in.
    std::uint32_t modes = 10;      ///< M of the bases baked on the fly.
    EBasis basis = EBasis::Smooth; ///< The chairs scene's basis (the other scenes choose their own).
    std::uint32_t proxyLevel = 10; ///< Contact proxy level L of new bodies.
    std::uint32_t seed = 1;
};

/// Where the camera starts for a sample (`OrbitCamera`'s target, distance, yaw, pitch).
struct CameraStart
{
    float targetX = 0.0f, targetY = 0.5f, targetZ = 0.0f;
    float distance = 6.0f, yaw = 0.6f, pitch = 0.35f;
};

/// A mesh a sample deforms and places itself (not a Bullet body): drawn like the bodies, p + U q in the vertex
/// shader, with `model`'s basis.
struct SampleMesh
{
    std::shared_ptr<const Model> model;
    Pose pose;                ///< Rest frame to world.
    std::vector<float> q;     ///< M reduced coordinates.
    Eigen::Vector4f color = Eigen::Vector4f(0.8f, 0.6f, 0.4f, 1.0f); ///< Linear RGB and alpha.
};

/// A debug line a sample draws, world coordinates, linear RGB and alpha.
struct SampleLine
{
    Eigen::Vector3f from, to;
    Eigen::Vector4f color;
};

/// What a sample draws besides the world's bodies.
struct SceneDecoration
{
    std::vector<SampleMesh> meshes;
    std::vector<SampleLine> lines;
};

/// A scene of the sandbox. The application owns the world; the sample adds its bodies, may drive them each
/// step, and may show its own controls.
class Sample
{
public:
    virtual ~Sample() = default;
    /// Adds the scene's bodies to `ioWorld` (which has nothing yet). Throws `bdt::Error` on bad options (an
    /// unreadable `--model`, say).
    virtual void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) = 0;
    /// Called before each physics step at simulated time `inTime` seconds (kinematic or animated bodies).
    virtual void PreStep(SampleWorld& /*ioWorld*/, double /*inTime*/) {}
    /// The sample's own ImGui controls, inside the Scene panel.
    virtual void DrawControls() {}
    /// True when the sample's controls asked for a rebuild (e.g. a new count).
    virtual bool WantsRebuild() { return false; }
    virtual CameraStart Camera() const { return {}; }
    /// Adds what the sample draws itself (meshes it deforms, debug lines) to `ioDecoration`, each frame.
    virtual void Decorate(SceneDecoration& /*ioDecoration*/) const {}
    /// Adds the sample's own figures to the headless run's stats (written with `--stats`).
    virtual void AddStats(nlohmann::json& /*ioStats*/) const {}
};

/// A registered sample: its name on the command line and in the panel, a line of description, its factory.
struct SampleEntry
{
    std::string name;
    std::string description;
    std::function<std::unique_ptr<Sample>()> create;
};

/// Registers a sample; returns true so that it can initialise a file-scope constant.
bool RegisterSample(std::string inName, std::string inDescription,
                    std::function<std::unique_ptr<Sample>()> inCreate);
/// Every registered sample, sorted by name.
const std::vector<SampleEntry>& Samples();
/// The sample called `inName` (case-insensitive), or null.
const SampleEntry* FindSample(const std::string& inName);

/// An asset baked on the fly from a built-in shape or a mesh file, with `inModes` columns of the basis
/// `inBasis` and a BD-Tree; assets are cached by (shape or file, triangles, modes, basis). Throws `bdt::Error`
/// naming the file on a mesh that cannot be loaded or baked (a modal bake needs a mesh that encloses a solid).
std::shared_ptr<const DeformableAsset> BakeAsset(const std::string& inShapeOrFile, std::uint32_t inTriangles,
                                                 std::uint32_t inModes, EBasis inBasis = EBasis::Smooth);

} // namespace bdt::demo
