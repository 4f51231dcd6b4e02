#pragma once

// The sandbox application: a window (or a hidden one, headless), the current sample's world stepped at 60 Hz,
// the scene view, mouse and keyboard, and the ImGui panels.

#include "Sample.h"
#include "SceneView.h"
#include "render/GlContext.h"

#include <bdt/bullet/DeformableShape.h>
#include <deque>
#include <memory>
#include <string>

class btPoint2PointConstraint;
class btRigidBody;

namespace bdt::demo
{

/// The sandbox's default vibration settings (see `AppOptions::modal`).
ModalSettings SandboxModal();

/// Command-line options of bdt-demo.
struct AppOptions
{
    std::string scene = "chairs";
    bool headless = false;
    int frames = 300;       ///< Headless: physics steps (frames) to run before the screenshot.
    std::string screenshot; ///< Headless: PNG written after the last frame.
    std::string stats;      ///< Headless: JSON of the run's figures.
    int width = 1280, height = 720;
    unsigned threads = 1; ///< Narrowphase threads of the world.
    /// Sphere tests per deformable pair and step (`DeformableShapeSettings::traversalBudget`): 0, the complete
    /// traversal; else the interruptible one (the Traversal panel's mode and slider).
    unsigned traversalBudget = 0;
    /// Where every deformable body makes its contacts (`DeformableShapeSettings::contactModel`, the Traversal
    /// panel's "contacts"): the deformed triangles under the proxies (default) or the proxy spheres.
    EContactModel contacts = EContactModel::Surface;
    /// Vibration of every deformable body (the Body panel's sliders). The sandbox's default is softer than
    /// the plugin's so that impacts visibly flex the bodies: ω² scaled by 0.1 (mode 0 of a smooth basis at
    /// 79 rad/s, 13 Hz), damping ratios by 4 (ζ 0.2, so a pile settles), strain limit 15% of the size. In the
    /// 100-chair scene the impacts move a surface by up to 20 cm (the root spheres' growth), against 2.6 cm
    /// with the plugin's defaults.
    ModalSettings modal = SandboxModal();
    SampleOptions sample;
    ViewOptions view;
};

/// Figures of the physics over a run, per step.
struct PhysicsHistory
{
    std::deque<float> stepMs, collisionMs, solverMs, tests, contacts, spheres;
    static constexpr std::size_t cLength = 240; ///< Steps kept for the plots.
    void Add(const StepStats& inStats, double inStepMs);
};

/// The sandbox. Construct, then `Run`.
class App
{
public:
    /// Opens the window (hidden when headless) and builds the scene. Throws `bdt::Error` on an unknown scene,
    /// no OpenGL 3.3 context, or a sample that cannot be built.
    explicit App(const AppOptions& inOptions);
    ~App();

    /// Interactive: runs until the window closes. Headless: steps `frames` frames, renders the last one
    /// offscreen, writes the screenshot and the stats. Returns the process exit code.
    int Run();

    /// Interactive: one frame (the events queued, a physics step unless paused, the scene, the panels, the
    /// swap). Returns false once the window was closed or Escape pressed. `Run` loops on it; tests drive it
    /// with synthetic SDL events.
    bool RunFrame();

    /// For tests and tools: the world of the current scene, the camera, the picked body (null if none), the
    /// physics steps taken since the scene was loaded, and the window's context.
    SampleWorld& GetWorld() { return *mWorld; }
    const OrbitCamera& Camera() const { return mCamera; }
    const btRigidBody* Picked() const { return mPicked; }
    bool Dragging() const { return mDragConstraint != nullptr; }
    /// Whether a left click hits (an impulse at the clicked surface point) instead of dragging: the hit tool,
    /// toggled by h or the body panel; Shift+click hits either way.
    bool HitTool() const { return mHitTool; }
    std::uint64_t Steps() const { return mSteps; }
    GlContext& Context() { return *mContext; }

private:
    void LoadSample(const std::string& inName);
    void StepPhysics();
    void RenderFrame(int inWidth, int inHeight);
    int RunHeadless();
    /// The headless run's figures (`--stats`): the scene, the view's and the last step's counts and times.
    nlohmann::json HeadlessStats(double inPhysicsSeconds, double inRenderMs, int inGlErrors) const;
    int RunInteractive();
    bool HandleEvent(const void* inEvent); // false on quit
    void DrawPanels();
    void DrawTraversalPanel();
    void DrawSpheresPanel();
    void DrawBodyPanel();
    void DrawStatsPanel();
    void DrawScenePanel();
    void ApplyToBodies();
    void ThrowBall();
    void SpawnBody();
    /// The dynamic body a Bullet ray test finds under pixel (x, y) (null if none), where the ray meets it (world),
    /// how far along the ray (m), and the ray's unit direction.
    struct PixelPick
    {
        btRigidBody* body = nullptr;
        btVector3 point{0, 0, 0};
        float distance = 0.0f;
        btVector3 direction{0, 0, 1};
    };
    PixelPick PickAt(int inX, int inY);
    /// The hit tool: an impulse along the view ray at the surface point under the pixel, of `mHitSpeed` times the
    /// body's mass (`World::ApplyImpulse` for a deformable, which also rings its modes). False on no body.
    bool HitAt(int inX, int inY);
    void BeginDrag(int inX, int inY);
    void Drag(int inX, int inY);
    void EndDrag();

    AppOptions mOptions;
    std::unique_ptr<GlContext> mContext;
    std::unique_ptr<SceneView> mView;
    std::unique_ptr<SampleWorld> mWorld;
    std::unique_ptr<Sample> mSample;
    std::string mSampleName;
    OrbitCamera mCamera;
    PhysicsHistory mHistory;
    double mPeakRootGrowth = 0.0; // m, headless: the largest root-sphere growth of any body over the run
    std::uint64_t mOverlapTestsTotal = 0; // bounding-volume tests over the run (StepStats::overlapTests summed)
    double mTime = 0.0;
    std::uint64_t mSteps = 0;
    bool mPaused = false;
    bool mStepOnce = false;
    bool mImGui = false;

    // Live traversal settings, applied to every deformable body.
    int mProxyLevel = 10;
    int mBound = 1; // EBound: 0 paper, 1 tight
    bool mCoherence = false;
    bool mFrontTracking = false;
    float mPairCacheSkin = float(DeformableShapeSettings{}.pairCacheSkin);
    int mTraversalMode = 0;  // 0 complete, 1 interruptible
    bool mBoxCulling = false; // BD-AABB boxes beside the spheres in deformable pairs
    int mTraversalBudget = 64; // sphere tests per deformable pair and step, in interruptible mode
    int mContactModel = 0;     // 0 surface (EContactModel::Surface), 1 proxies

    // Picking and dragging.
    btRigidBody* mPicked = nullptr;
    std::unique_ptr<btPoint2PointConstraint> mDragConstraint;
    float mDragDistance = 0.0f;
    bool mOrbiting = false, mPanning = false;
    bool mHitTool = false;
    float mHitSpeed = 3.0f; // m/s: the hit's impulse over the body's mass
    int mPluckMode = 0;
    float mPluckAmount = 0.5f;
};

} // namespace bdt::demo
