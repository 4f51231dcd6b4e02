#include "App.h"

#include "render/Screenshot.h"

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <SDL.h>
#include <algorithm>
#include <cfloat>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <imgui.h>
#include <nlohmann/json.hpp>

namespace bdt::demo
{

namespace
{

using Clock = std::chrono::steady_clock;
constexpr double cTimeStep = 1.0 / 60.0;

template <class T> void Push(std::deque<float>& ioSeries, T inValue)
{
    ioSeries.push_back(float(inValue));
    if (ioSeries.size() > PhysicsHistory::cLength)
        ioSeries.pop_front();
}

double Median(std::vector<double> inValues)
{
    if (inValues.empty())
        return 0.0;
    std::nth_element(inValues.begin(), inValues.begin() + std::ptrdiff_t(inValues.size() / 2),
                     inValues.end());
    return inValues[inValues.size() / 2];
}

btVector3 ToBt(const Eigen::Vector3f& inV)
{
    return {btScalar(inV.x()), btScalar(inV.y()), btScalar(inV.z())};
}

void PlotSeries(const char* inLabel, const std::deque<float>& inSeries)
{
    if (inSeries.empty())
        return;
    const std::vector<float> values(inSeries.begin(), inSeries.end());
    char overlay[64];
    std::snprintf(overlay, sizeof(overlay), "%.3g", double(values.back()));
    ImGui::PlotLines(inLabel, values.data(), int(values.size()), 0, overlay, 0.0f, FLT_MAX, ImVec2(0, 40));
}

/// The largest growth R' − R of a deformable body's root sphere, metres: a bound on how far its surface has
/// moved from the rest shape (paper §3.2), so a measure of the visible deformation.
double RootGrowthMax(World& ioWorld)
{
    double largest = 0.0;
    for (btRigidBody* body : ioWorld.Bodies())
    {
        DeformableShape& shape = *World::Shape(body);
        const float rest = shape.State().Proxies().Row(0)[3];
        const double growth =
            double(shape.State().Sphere(0).radius - rest) * double(shape.getLocalScaling().x());
        largest = std::max(largest, growth);
    }
    return largest;
}

/// Manifold points whose deformable side names a triangle (the surface model's contacts, `FeatureOf`).
std::uint64_t SurfaceContactPoints(btDispatcher& inDispatcher)
{
    std::uint64_t surfacePoints = 0;
    for (int m = 0; m < inDispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold& manifold = *inDispatcher.getManifoldByIndexInternal(m);
        const bool deformable0 = AsDeformable(manifold.getBody0()->getCollisionShape()) != nullptr;
        const bool deformable1 = AsDeformable(manifold.getBody1()->getCollisionShape()) != nullptr;
        for (int p = 0; p < manifold.getNumContacts(); ++p)
        {
            const btManifoldPoint& point = manifold.getContactPoint(p);
            if ((deformable0 && point.m_index0 >= 0) || (deformable1 && point.m_index1 >= 0))
                ++surfacePoints;
        }
    }
    return surfacePoints;
}

} // namespace

ModalSettings SandboxModal()
{
    ModalSettings modal;
    modal.stiffnessScale = 0.1f;
    modal.dampingScale = 4.0f;
    modal.strainLimit = 0.15f;
    return modal;
}

void PhysicsHistory::Add(const StepStats& inStats, double inStepMs)
{
    Push(stepMs, inStepMs);
    Push(collisionMs, inStats.collisionMs);
    Push(solverMs, inStats.solverMs);
    Push(tests, inStats.overlapTests);
    Push(contacts, inStats.contacts);
    Push(spheres, inStats.spheresUpdated);
}

App::App(const AppOptions& inOptions) : mOptions(inOptions)
{
    mOptions.view.stepSeconds = float(cTimeStep);
    if (FindSample(mOptions.scene) == nullptr)
    {
        std::string names;
        for (const SampleEntry& entry : Samples())
            names += (names.empty() ? "" : ", ") + entry.name;
        throw Error("unknown scene '" + mOptions.scene + "' (scenes: " + names + ")");
    }
    GlContextSettings settings;
    settings.width = mOptions.width;
    settings.height = mOptions.height;
    settings.hidden = mOptions.headless;
    mContext = std::make_unique<GlContext>(settings);
    mView = std::make_unique<SceneView>();
    mProxyLevel = int(mOptions.sample.proxyLevel);
    mContactModel = mOptions.contacts == EContactModel::Proxies ? 1 : 0;
    if (mOptions.traversalBudget > 0)
    {
        mTraversalMode = 1;
        mTraversalBudget = int(std::min(mOptions.traversalBudget, 100000u));
    }
    if (!mOptions.headless)
    {
        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ImGui::GetIO().IniFilename = nullptr;
        ImGui::StyleColorsDark();
        ImGui_ImplSDL2_InitForOpenGL(mContext->Window(), mContext->NativeContext());
        ImGui_ImplOpenGL3_Init("#version 330");
        mImGui = true;
    }
    LoadSample(mOptions.scene);
}

App::~App()
{
    EndDrag();
    mWorld.reset();
    mView.reset();
    if (mImGui)
    {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplSDL2_Shutdown();
        ImGui::DestroyContext();
    }
}

void App::LoadSample(const std::string& inName)
{
    const SampleEntry* entry = FindSample(inName);
    if (entry == nullptr)
        throw Error("unknown scene '" + inName + "'");
    EndDrag();
    mPicked = nullptr;
    // The same scene again (reset, or a rebuild its controls asked for) keeps the sample, so its settings
    // (the chair count, say) carry over; another scene starts from a new one.
    const bool keepSample = mSample != nullptr && entry->name == mSampleName;
    if (!keepSample)
        mSample.reset();
    mWorld.reset();
    SampleWorldSettings worldSettings;
    worldSettings.narrowphaseThreads = mOptions.threads;
    mWorld = std::make_unique<SampleWorld>(worldSettings);
    mWorld->AddGroundPlane();
    if (!keepSample)
        mSample = entry->create();
    SampleOptions options = mOptions.sample;
    options.proxyLevel = std::uint32_t(mProxyLevel);
    mSample->Build(*mWorld, options);
    mSampleName = entry->name;
    const CameraStart start = mSample->Camera();
    mCamera.target = Eigen::Vector3f(start.targetX, start.targetY, start.targetZ);
    mCamera.distance = start.distance;
    mCamera.yaw = start.yaw;
    mCamera.pitch = start.pitch;
    mTime = 0.0;
    mSteps = 0;
    mHistory = PhysicsHistory();
    mPeakRootGrowth = 0.0;
    mOverlapTestsTotal = 0;
    ApplyToBodies();
}

void App::ApplyToBodies()
{
    for (btRigidBody* body : mWorld->Deformables().Bodies())
    {
        DeformableShape& shape = *World::Shape(body);
        DeformableShapeSettings settings = shape.Settings();
        const std::uint32_t levels = shape.Asset().Tree().LevelCount();
        settings.proxyLevel = std::uint32_t(std::clamp(mProxyLevel, 0, int(levels) - 1));
        settings.bound = mBound == 0 ? EBound::Paper : EBound::Tight;
        settings.temporalCoherence = mCoherence;
        settings.frontTracking = mFrontTracking;
        settings.pairCacheSkin = double(mPairCacheSkin);
        settings.traversalBudget = mTraversalMode == 1 ? std::uint32_t(std::max(mTraversalBudget, 1)) : 0u;
        settings.boxCulling = mBoxCulling;
        settings.contactModel = mContactModel == 1 ? EContactModel::Proxies : EContactModel::Surface;
        settings.modal = mOptions.modal;
        shape.SetSettings(settings);
    }
}

void App::StepPhysics()
{
    const std::size_t bodies = mWorld->Deformables().Bodies().size();
    mSample->PreStep(*mWorld, mTime);
    if (mWorld->Deformables().Bodies().size() != bodies) // the sample spawned bodies: give them the settings
        ApplyToBodies();
    const Clock::time_point start = Clock::now();
    mWorld->Step(1, cTimeStep);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    mTime += cTimeStep;
    ++mSteps;
    mHistory.Add(mWorld->Deformables().Stats(), ms);
    mOverlapTestsTotal += mWorld->Deformables().Stats().overlapTests;
    if (mOptions.headless) // for the stats only
        mPeakRootGrowth = std::max(mPeakRootGrowth, RootGrowthMax(mWorld->Deformables()));
}

void App::RenderFrame(int inWidth, int inHeight)
{
    SceneDecoration decoration;
    mSample->Decorate(decoration);
    mView->Render(*mWorld, mCamera, inWidth, inHeight, mOptions.view, mPicked, &decoration);
}

int App::Run()
{
    return mOptions.headless ? RunHeadless() : RunInteractive();
}

int App::RunHeadless()
{
    // Progress on stderr every 2 s (stdout carries the outputs' paths): frames done, the pace over the last
    // report's interval (a settling pile slows down: the mean pace since the start would promise too little time
    // left), the time left at that pace.
    const Clock::time_point start = Clock::now();
    std::fprintf(stderr, "headless: %d frames of %s\n", mOptions.frames, mSampleName.c_str());
    Clock::time_point reported = start;
    int reportedFrames = 0;
    for (int frame = 0; frame < mOptions.frames; ++frame)
    {
        StepPhysics();
        const Clock::time_point now = Clock::now();
        if (now - reported >= std::chrono::seconds(2) && frame + 1 < mOptions.frames)
        {
            const double interval = std::chrono::duration<double>(now - reported).count();
            const double pace = double(frame + 1 - reportedFrames) / interval;
            reported = now;
            reportedFrames = frame + 1;
            std::fprintf(stderr, "headless: frame %d of %d, %.1f frames/s, about %.0f s left\n", frame + 1,
                         mOptions.frames, pace, double(mOptions.frames - frame - 1) / pace);
        }
    }
    const double physicsSeconds = std::chrono::duration<double>(Clock::now() - start).count();

    // The last frame, offscreen (a hidden window's own framebuffer is not guaranteed to hold pixels).
    const Clock::time_point renderStart = Clock::now();
    OffscreenTarget target(mOptions.width, mOptions.height);
    target.Bind();
    RenderFrame(mOptions.width, mOptions.height);
    glFinish();
    const double renderMs = std::chrono::duration<double, std::milli>(Clock::now() - renderStart).count();
    int glErrors = 0;
    for (GLenum error = glGetError(); error != GL_NO_ERROR && glErrors < 100; error = glGetError())
        ++glErrors;
    if (!mOptions.screenshot.empty())
    {
        WritePng(mOptions.screenshot, mOptions.width, mOptions.height,
                 ReadPixels(mOptions.width, mOptions.height));
        std::printf("screenshot: %s\n", mOptions.screenshot.c_str());
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);

    nlohmann::json stats = HeadlessStats(physicsSeconds, renderMs, glErrors);
    mSample->AddStats(stats);
    if (!mOptions.stats.empty())
    {
        std::ofstream out(mOptions.stats);
        out << stats.dump(2) << "\n";
        if (!out)
            throw Error(mOptions.stats + ": cannot write the stats");
        std::printf("stats: %s\n", mOptions.stats.c_str());
    }
    const ViewStats& view = mView->Stats();
    std::printf(
        "%s: %d frames, %zu bodies (%zu drawn, %zu culled), %llu CPU-deformed vertices, %d GL errors\n",
        mSampleName.c_str(), mOptions.frames, view.bodies, view.drawn, view.culled,
        static_cast<unsigned long long>(view.cpuDeformedVertices), glErrors);
    return glErrors == 0 ? 0 : 1;
}

nlohmann::json App::HeadlessStats(double inPhysicsSeconds, double inRenderMs, int inGlErrors) const
{
    const ViewStats& view = mView->Stats();
    const StepStats& physics = mWorld->Deformables().Stats();
    double lowest = 1e30, fastest = 0.0;
    for (btRigidBody* body : mWorld->Deformables().Bodies())
    {
        lowest = std::min(lowest, double(body->getWorldTransform().getOrigin().y()));
        fastest = std::max(fastest, double(body->getLinearVelocity().length()));
    }
    const std::uint64_t surfacePoints = SurfaceContactPoints(*mWorld->Dynamics().getDispatcher());
    const std::vector<double> steps(mHistory.stepMs.begin(), mHistory.stepMs.end());
    return {{"scene", mSampleName},
            {"contact_model", mContactModel == 1 ? "proxies" : "surface"},
            {"frames", mOptions.frames},
            {"width", mOptions.width},
            {"height", mOptions.height},
            {"gl", mContext->Description()},
            {"gl_errors", inGlErrors},
            {"bodies", view.bodies},
            {"deformable_bodies", mWorld->Deformables().Bodies().size()},
            {"drawn", view.drawn},
            {"culled", view.culled},
            {"models_on_gpu", view.models},
            {"cpu_deformed_vertices", view.cpuDeformedVertices},
            {"frame_upload_bytes", view.frameUploadBytes},
            {"mesh_bytes_on_gpu", view.meshBytes},
            {"debug_spheres", view.spheres},
            {"debug_lines", view.lines},
            {"bound_view", int(mOptions.view.boundView)},
            {"bounds_drawn", view.bounds},
            {"sample_meshes", view.sampleMeshes},
            {"bound_view_deformed_vertices", view.boundViewDeformedVertices},
            {"sphere_tightness_max", view.sphereTightnessMax},
            {"sphere_tightness_mean", view.sphereTightnessMean},
            {"root_growth_max_m", RootGrowthMax(mWorld->Deformables())},
            {"root_growth_peak_m", mPeakRootGrowth},
            {"render_ms", inRenderMs},
            {"physics_seconds", inPhysicsSeconds},
            {"step_ms_median_last_240", Median(steps)},
            {"last_step_ms",
             {{"pre_tick", physics.preTickMs},
              {"collision", physics.collisionMs},
              {"solver", physics.solverMs},
              {"post_solve", physics.postSolveMs}}},
            {"last_narrowphase",
             {{"descent_ms", physics.narrowphase.descentMs},
              {"patches_ms", physics.narrowphase.placeMs},
              {"features_ms", physics.narrowphase.featuresMs},
              {"regions_ms", physics.narrowphase.regionsMs},
              {"commit_ms", physics.narrowphase.commitMs},
              {"pairs", physics.narrowphase.pairs},
              {"piece_pairs", physics.narrowphase.work.piecePairs},
              {"triangle_tests", physics.narrowphase.work.triangleTests},
              {"points_found", physics.narrowphase.contactsFound},
              {"points_kept", physics.narrowphase.pointsKept}}},
            {"spheres_updated", physics.spheresUpdated},
            {"overlap_tests", physics.overlapTests},
            {"overlap_tests_total", mOverlapTestsTotal},
            {"contacts", physics.contacts},
            {"surface_contact_points", surfacePoints},
            {"vibration_energy_j", physics.vibrationEnergy},
            {"fastest_deformable_m_s", fastest},
            {"lowest_body_height_m", mWorld->Deformables().Bodies().empty() ? 0.0 : lowest},
            {"nonfinite_resets", physics.transformResets + physics.modalResets}};
}

int App::RunInteractive()
{
    while (RunFrame())
    {
    }
    return 0;
}

bool App::RunFrame()
{
    bool running = true;
    SDL_Event event;
    while (SDL_PollEvent(&event))
        running = HandleEvent(&event) && running;
    if (!running)
        return false;
    if (!mPaused || mStepOnce)
    {
        StepPhysics();
        mStepOnce = false;
    }
    int width = 0, height = 0;
    mContext->DrawableSize(width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    RenderFrame(width, height);
    if (mImGui)
    {
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplSDL2_NewFrame();
        ImGui::NewFrame();
        DrawPanels();
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    mContext->SwapBuffers();
    if (mSample->WantsRebuild())
        LoadSample(mSampleName);
    return true;
}

bool App::HandleEvent(const void* inEvent)
{
    const SDL_Event& event = *static_cast<const SDL_Event*>(inEvent);
    bool panelsWantMouse = false, panelsWantKeyboard = false;
    if (mImGui)
    {
        ImGui_ImplSDL2_ProcessEvent(&event);
        panelsWantMouse = ImGui::GetIO().WantCaptureMouse;
        panelsWantKeyboard = ImGui::GetIO().WantCaptureKeyboard;
    }
    int width = 0, height = 0;
    mContext->DrawableSize(width, height);
    switch (event.type)
    {
    case SDL_QUIT:
        return false;
    case SDL_KEYDOWN:
        if (panelsWantKeyboard)
            break;
        switch (event.key.keysym.sym)
        {
        case SDLK_ESCAPE:
            return false;
        case SDLK_SPACE:
            mPaused = !mPaused;
            break;
        case SDLK_s:
            mStepOnce = true;
            break;
        case SDLK_r:
            LoadSample(mSampleName);
            break;
        case SDLK_b:
            ThrowBall();
            break;
        case SDLK_h:
            mHitTool = !mHitTool;
            break;
        default:
            break;
        }
        break;
    case SDL_MOUSEBUTTONDOWN:
        if (panelsWantMouse)
            break;
        if (event.button.button == SDL_BUTTON_LEFT && (mHitTool || (SDL_GetModState() & KMOD_SHIFT) != 0))
            mOrbiting = !HitAt(event.button.x, event.button.y);
        else if (event.button.button == SDL_BUTTON_LEFT)
        {
            BeginDrag(event.button.x, event.button.y);
            mOrbiting = mDragConstraint == nullptr;
        }
        else
            mPanning = true;
        break;
    case SDL_MOUSEBUTTONUP:
        if (event.button.button == SDL_BUTTON_LEFT)
        {
            EndDrag();
            mOrbiting = false;
        }
        else
            mPanning = false;
        break;
    case SDL_MOUSEMOTION:
        if (mDragConstraint)
            Drag(event.motion.x, event.motion.y);
        else if (mOrbiting)
            mCamera.Orbit(float(event.motion.xrel), float(event.motion.yrel));
        else if (mPanning)
            mCamera.Pan(float(event.motion.xrel), float(event.motion.yrel), height);
        break;
    case SDL_MOUSEWHEEL:
        if (!panelsWantMouse)
            mCamera.Zoom(float(event.wheel.y));
        break;
    default:
        break;
    }
    return true;
}

App::PixelPick App::PickAt(int inX, int inY)
{
    int windowWidth = 0, windowHeight = 0;
    SDL_GetWindowSize(mContext->Window(), &windowWidth, &windowHeight);
    Eigen::Vector3f origin, direction;
    mCamera.PixelRay(float(inX), float(inY), windowWidth, windowHeight, origin, direction);
    const btVector3 from = ToBt(origin), to = ToBt(origin + 500.0f * direction);
    btCollisionWorld::ClosestRayResultCallback hit(from, to);
    mWorld->Dynamics().rayTest(from, to, hit);
    PixelPick pick;
    pick.direction = ToBt(direction.normalized());
    if (!hit.hasHit())
        return pick;
    btRigidBody* body = btRigidBody::upcast(const_cast<btCollisionObject*>(hit.m_collisionObject));
    if (body == nullptr || body->isStaticOrKinematicObject())
        return pick;
    pick.body = body;
    pick.point = hit.m_hitPointWorld;
    pick.distance = float((hit.m_hitPointWorld - from).length());
    return pick;
}

bool App::HitAt(int inX, int inY)
{
    const PixelPick pick = PickAt(inX, inY);
    if (pick.body == nullptr)
        return false;
    mPicked = pick.body;
    const btVector3 impulse = pick.direction * (btScalar(mHitSpeed) / pick.body->getInvMass());
    if (!mWorld->Deformables().ApplyImpulse(pick.body, pick.point, impulse))
    {
        // A plain Bullet body: Bullet's own impulse at the point.
        pick.body->applyImpulse(impulse, pick.point - pick.body->getCenterOfMassPosition());
        pick.body->activate(true);
    }
    return true;
}

void App::BeginDrag(int inX, int inY)
{
    const PixelPick pick = PickAt(inX, inY);
    mPicked = pick.body;
    if (pick.body == nullptr)
        return;
    btRigidBody* body = pick.body;
    body->setActivationState(DISABLE_DEACTIVATION);
    const btVector3 pivot = body->getCenterOfMassTransform().inverse() * pick.point;
    mDragConstraint = std::make_unique<btPoint2PointConstraint>(*body, pivot);
    mDragConstraint->m_setting.m_impulseClamp =
        30.0f * btScalar(1.0 / std::max(body->getInvMass(), btScalar(1e-6)));
    mDragConstraint->m_setting.m_tau = 0.01f;
    mWorld->Dynamics().addConstraint(mDragConstraint.get(), true);
    mDragDistance = pick.distance;
}

void App::Drag(int inX, int inY)
{
    int windowWidth = 0, windowHeight = 0;
    SDL_GetWindowSize(mContext->Window(), &windowWidth, &windowHeight);
    Eigen::Vector3f origin, direction;
    mCamera.PixelRay(float(inX), float(inY), windowWidth, windowHeight, origin, direction);
    mDragConstraint->setPivotB(ToBt(origin + mDragDistance * direction));
}

void App::EndDrag()
{
    if (!mDragConstraint)
        return;
    if (mWorld)
    {
        mWorld->Dynamics().removeConstraint(mDragConstraint.get());
        if (mPicked != nullptr)
        {
            mPicked->forceActivationState(ACTIVE_TAG);
            mPicked->setDeactivationTime(0);
        }
    }
    mDragConstraint.reset();
}

void App::ThrowBall()
{
    const Eigen::Vector3f eye = mCamera.Eye();
    const Eigen::Vector3f direction = (mCamera.target - eye).normalized();
    btRigidBody* ball =
        mWorld->AddRigid(std::make_unique<btSphereShape>(btScalar(0.15)),
                         btTransform(btQuaternion::getIdentity(), ToBt(eye + 0.5f * direction)), 8.0, 0.5f);
    ball->setLinearVelocity(ToBt(18.0f * direction));
}

void App::SpawnBody()
{
    if (mWorld->Deformables().Bodies().empty())
        return;
    // Another body of the first deformable's asset, dropped from above the target.
    btRigidBody* first = mWorld->Deformables().Bodies().front();
    const DeformableShape& shape = *World::Shape(first);
    BodySettings desc;
    desc.mass = 1.0 / double(first->getInvMass());
    desc.scale = double(shape.getLocalScaling().x());
    desc.proxyLevel = shape.Settings().proxyLevel;
    desc.transform = btTransform(btQuaternion(btVector3(1, 0, 1).normalized(), 0.4f),
                                 ToBt(mCamera.target + Eigen::Vector3f(0.0f, 3.0f, 0.0f)));
    mWorld->Deformables().CreateBody(shape.AssetPtr(), desc);
    ApplyToBodies();
}

void App::DrawPanels()
{
    // The panels fit the window's height (10 pixels' margin above and below), whatever its size: what does not fit
    // scrolls, so a 720-pixel window reaches the Stats panel's last line.
    constexpr float cMargin = 10.0f;
    ImGui::SetNextWindowPos(ImVec2(cMargin, cMargin), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(340, 0), ImGuiCond_FirstUseEver);
    const float tallest = std::max(100.0f, ImGui::GetIO().DisplaySize.y - 2.0f * cMargin);
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(FLT_MAX, tallest));
    ImGui::Begin("BD-Tree sandbox");
    if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen))
        DrawScenePanel();
    if (ImGui::CollapsingHeader("Traversal", ImGuiTreeNodeFlags_DefaultOpen))
        DrawTraversalPanel();
    if (ImGui::CollapsingHeader("Spheres", ImGuiTreeNodeFlags_DefaultOpen))
        DrawSpheresPanel();
    if (ImGui::CollapsingHeader("Body"))
        DrawBodyPanel();
    if (ImGui::CollapsingHeader("Stats", ImGuiTreeNodeFlags_DefaultOpen))
        DrawStatsPanel();
    ImGui::End();
}

void App::DrawScenePanel()
{
    if (ImGui::BeginCombo("scene", mSampleName.c_str()))
    {
        for (const SampleEntry& entry : Samples())
            if (ImGui::Selectable(entry.name.c_str(), entry.name == mSampleName))
            {
                LoadSample(entry.name);
                break;
            }
        ImGui::EndCombo();
    }
    mSample->DrawControls();
    ImGui::Checkbox("pause (space)", &mPaused);
    ImGui::SameLine();
    if (ImGui::Button("step (s)"))
        mStepOnce = true;
    ImGui::SameLine();
    if (ImGui::Button("reset (r)"))
        LoadSample(mSampleName);
    if (ImGui::Button("throw ball (b)"))
        ThrowBall();
    ImGui::SameLine();
    if (ImGui::Button("spawn body"))
        SpawnBody();
    ImGui::TextDisabled("left drag: orbit or drag a body; right: pan; wheel: zoom");
}

void App::DrawTraversalPanel()
{
    bool changed = ImGui::SliderInt("depth L", &mProxyLevel, 0, 16);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Contact proxy level: the spheres cull down to this level, where the contacts are made "
                          "(on their triangles, or on the spheres themselves: paper §3.4)");
    changed |= ImGui::Combo("contacts", &mContactModel, "surface: triangles under the proxies\0proxies: the spheres (§3.4)\0");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Surface: a proxy still overlapping at level L makes exact contacts of its deformed "
                          "triangles, so bodies rest on their surfaces (the view of proxies in contact outlines "
                          "the triangles touched). Proxies: contacts on the spheres, cheaper in piles, but bodies "
                          "stand on their proxies, up to a proxy's diameter above the surface.");
    changed |= ImGui::Combo("bound", &mBound, "paper: R + dRT|q|\0tight: R + min(dRT|q|, dR|q|2)\0");
    changed |= ImGui::Checkbox("temporal coherence (§3.5)", &mCoherence);
    changed |= ImGui::SliderFloat("pair cache skin", &mPairCacheSkin, 0.0f, 0.1f, "%.3f");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Deformable pairs keep their proxy pairs within reach + this fraction of the bounding "
                          "radius and reuse them while the bodies stay within it (0: off). Same contacts.");
    changed |= ImGui::Combo("traversal", &mTraversalMode, "complete\0interruptible (test budget)\0");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Interruptible: each deformable pair tests at most the budget's spheres a step, breadth "
                          "first; pairs it could not refine become contacts of their coarser spheres "
                          "(Mendoza & O'Sullivan 2006)");
    if (mTraversalMode == 1)
        changed |= ImGui::SliderInt("tests per pair", &mTraversalBudget, 1, 2000, "%d", ImGuiSliderFlags_Logarithmic);
    changed |= ImGui::Checkbox("BD-AABB box culling (§3.5)", &mBoxCulling);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Deformable pairs are culled by BD-AABB boxes (12M flops each) beside the spheres; the "
                          "contacts are the same");
    changed |= ImGui::Checkbox("front tracking", &mFrontTracking);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Each deformable pair's descent starts from last step's front (over the pair cache). "
                          "Same contacts.");
    if (changed)
        ApplyToBodies();
}

void App::DrawSpheresPanel()
{
    ViewOptions& view = mOptions.view;
    ImGui::Checkbox("meshes", &view.meshes);
    ImGui::Checkbox("bounds of level", &view.spheres);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(100);
    ImGui::SliderInt("##level", &view.sphereLevel, 0, 16);
    int boundView = int(view.boundView);
    if (ImGui::Combo("bounds", &boundView, "BD-Tree spheres\0BD-AABB boxes (12M flops)\0distance hierarchy (CPU vertices)\0"))
        view.boundView = EBoundView(boundView);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Spheres: what the narrowphase uses (paper §3.2). Boxes: per-axis bounds from q (§3.5). "
                          "Distance hierarchy: central vertex and radius from the deformed vertices (Madera 2007).");
    ImGui::Checkbox("colour by tightness R'/R", &view.tightness);
    ImGui::SliderFloat("opacity", &view.sphereAlpha, 0.05f, 1.0f, "%.2f");
    ImGui::Checkbox("colour by displacement |Uq|", &view.displacement);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(100);
    ImGui::SliderFloat("m##range", &view.displacementRange, 0.005f, 0.5f, "%.3f",
                       ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("colour by motion (m/s)", &view.motion);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Each vertex's speed over the last step, from the motion vectors the shader gets "
                          "(World::PreviousMeshTransform, PreviousQ): a ringing surface shows on a resting body");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(100);
    ImGui::SliderFloat("m/s##motion", &view.motionRange, 0.01f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("contact proxies", &view.proxies);
    ImGui::SameLine();
    ImGui::Checkbox("contacts", &view.contacts);
    ImGui::Checkbox("frustum culling", &view.cull);
}

void App::DrawBodyPanel()
{
    // Every deformable body's vibration (and new ones'), applied when a slider moved.
    ModalSettings& modal = mOptions.modal;
    bool changed = ImGui::SliderFloat("stiffness scale", &modal.stiffnessScale, 0.01f, 10.0f, "%.2f",
                                      ImGuiSliderFlags_Logarithmic);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Multiplies every mode's w^2 (all deformable bodies)");
    changed |= ImGui::SliderFloat("damping scale", &modal.dampingScale, 0.0f, 10.0f, "%.2f");
    changed |= ImGui::SliderFloat("strain limit", &modal.strainLimit, 0.005f, 0.5f, "%.3f",
                                  ImGuiSliderFlags_Logarithmic);
    if (changed)
        ApplyToBodies();
    ImGui::Checkbox("hit tool (h; or Shift+click)", &mHitTool);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A click strikes the body where it lands: an impulse along the view ray that moves the\n"
                          "body and rings its modes (World::ApplyImpulse)");
    ImGui::SliderFloat("hit speed, m/s", &mHitSpeed, 0.5f, 20.0f, "%.1f", ImGuiSliderFlags_Logarithmic);
    if (mPicked == nullptr || World::Shape(mPicked) == nullptr)
    {
        ImGui::TextDisabled("click a deformable body to pick it and pluck its modes");
        return;
    }
    DeformableShape& shape = *World::Shape(mPicked);
    const int modes = int(shape.Asset().Tree().ModeCount());
    if (modes > 0)
    {
        ImGui::SliderInt("mode", &mPluckMode, 0, modes - 1);
        ImGui::SliderFloat("amount", &mPluckAmount, 0.01f, 2.0f);
        if (ImGui::Button("pluck"))
        {
            std::vector<double> impulse(std::size_t(modes), 0.0);
            impulse[std::size_t(mPluckMode)] = double(mPluckAmount);
            shape.Dynamics().ApplyImpulse(impulse);
            mPicked->activate(true);
        }
    }
    const std::span<const float> q = shape.State().Q();
    if (!q.empty())
        ImGui::PlotHistogram("q", q.data(), int(q.size()), 0, nullptr, FLT_MAX, FLT_MAX, ImVec2(0, 50));
}

void App::DrawStatsPanel()
{
    const StepStats& stats = mWorld->Deformables().Stats();
    const ViewStats& view = mView->Stats();
    ImGui::Text("t = %.2f s, %llu steps, %zu bodies (%zu drawn, %zu culled)", mTime,
                static_cast<unsigned long long>(mSteps), view.bodies, view.drawn, view.culled);
    ImGui::Text("spheres updated %llu, tests %llu, contacts %llu",
                static_cast<unsigned long long>(stats.spheresUpdated),
                static_cast<unsigned long long>(stats.overlapTests),
                static_cast<unsigned long long>(stats.contacts));
    ImGui::Text("ms: modal %.2f, collision %.2f, solver %.2f, read-back %.2f", stats.preTickMs,
                stats.collisionMs, stats.solverMs, stats.postSolveMs);
    // The narrowphase stage by stage (processor time summed over its threads), and what it made.
    const NarrowphaseStats& narrow = stats.narrowphase;
    ImGui::Text("narrowphase ms: descent %.2f, patches %.2f, features %.2f, regions %.2f, commit %.2f",
                narrow.descentMs, narrow.placeMs, narrow.featuresMs, narrow.regionsMs, narrow.commitMs);
    ImGui::Text("pairs %llu (%llu apart), piece pairs %llu, points found %llu, filtered %llu, kept %llu",
                static_cast<unsigned long long>(narrow.pairs), static_cast<unsigned long long>(narrow.pairsApart),
                static_cast<unsigned long long>(narrow.work.piecePairs),
                static_cast<unsigned long long>(narrow.contactsFound),
                static_cast<unsigned long long>(narrow.contactsFiltered),
                static_cast<unsigned long long>(narrow.pointsKept));
    ImGui::Text("CPU-deformed vertices %llu, upload %.1f KB/frame",
                static_cast<unsigned long long>(view.cpuDeformedVertices),
                double(view.frameUploadBytes) / 1e3);
    PlotSeries("step ms", mHistory.stepMs);
    PlotSeries("collision ms", mHistory.collisionMs);
    PlotSeries("tests", mHistory.tests);
    PlotSeries("contacts", mHistory.contacts);
    PlotSeries("spheres updated", mHistory.spheres);
}

} // namespace bdt::demo
