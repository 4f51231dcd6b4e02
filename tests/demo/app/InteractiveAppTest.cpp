// The interactive sandbox (a window, the ImGui panels, mouse and keys) driven by synthetic SDL events under
// Xvfb: the frames draw without GL errors, a click on a body picks it with Bullet's ray test, dragging lifts
// it, an empty-sky drag orbits the camera, the wheel zooms, and the keys pause, single-step, throw, reset and
// quit.

#include "../GlTestContext.h"
#include "app/App.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <SDL.h>
#include <bdt/adapter/World.h>
#include <imgui_internal.h>

namespace bdt::demo
{
namespace
{

constexpr int cWidth = 1280, cHeight = 720; // the panels take the left 350 pixels

void PushMouseMotion(SDL_Window* inWindow, int inX, int inY, int inDx, int inDy)
{
    SDL_WarpMouseInWindow(inWindow, inX, inY); // the panels' backend reads the pointer itself too
    SDL_Event event{};
    event.type = SDL_MOUSEMOTION;
    event.motion.windowID = SDL_GetWindowID(inWindow);
    event.motion.x = inX;
    event.motion.y = inY;
    event.motion.xrel = inDx;
    event.motion.yrel = inDy;
    SDL_PushEvent(&event);
}

void PushMouseButton(SDL_Window* inWindow, bool inDown, std::uint8_t inButton, int inX, int inY)
{
    SDL_Event event{};
    event.type = inDown ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
    event.button.windowID = SDL_GetWindowID(inWindow);
    event.button.button = inButton;
    event.button.state = inDown ? SDL_PRESSED : SDL_RELEASED;
    event.button.clicks = 1;
    event.button.x = inX;
    event.button.y = inY;
    SDL_PushEvent(&event);
}

void PushKey(SDL_Window* inWindow, SDL_Keycode inKey)
{
    SDL_Event event{};
    event.type = SDL_KEYDOWN;
    event.key.windowID = SDL_GetWindowID(inWindow);
    event.key.state = SDL_PRESSED;
    event.key.keysym.sym = inKey;
    event.key.keysym.scancode = SDL_GetScancodeFromKey(inKey);
    SDL_PushEvent(&event);
}

void PushWheel(SDL_Window* inWindow, int inSteps)
{
    SDL_Event event{};
    event.type = SDL_MOUSEWHEEL;
    event.wheel.windowID = SDL_GetWindowID(inWindow);
    event.wheel.y = inSteps;
    SDL_PushEvent(&event);
}

// Where `inPoint` (world) is on the window, pixels from the top left.
Eigen::Vector2i ToPixel(const OrbitCamera& inCamera, const btVector3& inPoint)
{
    const Eigen::Matrix4f viewProjection =
        inCamera.Projection(float(cWidth) / float(cHeight)) * inCamera.View();
    const Eigen::Vector4f clip =
        viewProjection * Eigen::Vector4f(inPoint.x(), inPoint.y(), inPoint.z(), 1.0f);
    const float x = 0.5f * (clip.x() / clip.w() + 1.0f) * float(cWidth);
    const float y = 0.5f * (1.0f - clip.y() / clip.w()) * float(cHeight);
    return {int(std::lround(x)), int(std::lround(y))};
}

void RunFrames(App& ioApp, int inFrames)
{
    for (int i = 0; i < inFrames; ++i)
        ASSERT_TRUE(ioApp.RunFrame());
}

TEST(InteractiveApp, MouseAndKeysDriveTheSandbox)
{
    BDT_REQUIRE_GL_CONTEXT();
    AppOptions options;
    options.scene = "drop";
    options.width = cWidth;
    options.height = cHeight;
    options.sample.count = 1;
    App app(options);
    SDL_Window* window = app.Context().Window();
    RunFrames(app, 90); // the pawn lands and settles
    ASSERT_EQ(app.GetWorld().Deformables().Bodies().size(), 1u);
    btRigidBody* pawn = app.GetWorld().Deformables().Bodies().front();

    // Click on the pawn's centre of mass: the ray test picks it and a drag constraint holds it.
    const Eigen::Vector2i at = ToPixel(app.Camera(), pawn->getCenterOfMassPosition());
    ASSERT_GT(at.x(), 400);
    ASSERT_LT(at.x(), cWidth);
    PushMouseMotion(window, at.x(), at.y(), 0, 0);
    RunFrames(app, 1);
    PushMouseButton(window, true, SDL_BUTTON_LEFT, at.x(), at.y());
    RunFrames(app, 1);
    EXPECT_EQ(app.Picked(), pawn);
    EXPECT_TRUE(app.Dragging());

    // Dragging 120 pixels up lifts it (a pawn on the ground has its centre of mass ~0.2 m up).
    const double startHeight = double(pawn->getCenterOfMassPosition().y());
    for (int i = 1; i <= 12; ++i)
    {
        PushMouseMotion(window, at.x(), at.y() - 10 * i, 0, -10);
        RunFrames(app, 1);
    }
    RunFrames(app, 45);
    EXPECT_GT(double(pawn->getCenterOfMassPosition().y()), startHeight + 0.3);
    PushMouseButton(window, false, SDL_BUTTON_LEFT, at.x(), at.y() - 120);
    RunFrames(app, 1);
    EXPECT_FALSE(app.Dragging());

    // h turns on the hit tool: a click strikes the pawn where the ray meets it, moving it away from the camera
    // and ringing its modes; h again turns it off.
    RunFrames(app, 30);
    PushKey(window, SDLK_h);
    RunFrames(app, 1);
    ASSERT_TRUE(app.HitTool());
    const Eigen::Vector2i aim = ToPixel(app.Camera(), pawn->getCenterOfMassPosition());
    const Eigen::Vector3f eye = app.Camera().Eye();
    const btVector3 away = pawn->getCenterOfMassPosition() - btVector3(eye.x(), eye.y(), eye.z());
    const ModalDynamics& modes = World::Shape(pawn)->Dynamics();
    const double kineticBefore = modes.KineticEnergy();
    PushMouseMotion(window, aim.x(), aim.y(), 0, 0);
    PushMouseButton(window, true, SDL_BUTTON_LEFT, aim.x(), aim.y());
    PushMouseButton(window, false, SDL_BUTTON_LEFT, aim.x(), aim.y());
    RunFrames(app, 1);
    EXPECT_FALSE(app.Dragging());
    EXPECT_GT(pawn->getLinearVelocity().dot(away.normalized()), 1.0f) << "struck away from the camera";
    EXPECT_GT(modes.KineticEnergy(), kineticBefore);
    PushKey(window, SDLK_h);
    RunFrames(app, 1);
    EXPECT_FALSE(app.HitTool());
    RunFrames(app, 60);

    // A left drag on the empty sky orbits; the wheel zooms.
    const float yaw = app.Camera().yaw, distance = app.Camera().distance;
    PushMouseMotion(window, 1100, 40, 0, 0);
    PushMouseButton(window, true, SDL_BUTTON_LEFT, 1100, 40);
    PushMouseMotion(window, 1150, 40, 50, 0);
    PushMouseButton(window, false, SDL_BUTTON_LEFT, 1150, 40);
    PushWheel(window, 2);
    RunFrames(app, 1);
    EXPECT_NE(app.Camera().yaw, yaw);
    EXPECT_LT(app.Camera().distance, distance);
    EXPECT_EQ(app.Picked(), nullptr); // the sky has no body

    // b throws a ball; space pauses; s steps once; Escape quits.
    const int objects = app.GetWorld().Dynamics().getNumCollisionObjects();
    PushKey(window, SDLK_b);
    RunFrames(app, 1);
    EXPECT_EQ(app.GetWorld().Dynamics().getNumCollisionObjects(), objects + 1);
    PushKey(window, SDLK_SPACE);
    RunFrames(app, 1);
    const std::uint64_t steps = app.Steps();
    RunFrames(app, 3);
    EXPECT_EQ(app.Steps(), steps);
    PushKey(window, SDLK_s);
    RunFrames(app, 1);
    EXPECT_EQ(app.Steps(), steps + 1);
    // r rebuilds the scene: one pawn again, the ball gone, the clock at 0 (paused: no step yet).
    PushKey(window, SDLK_r);
    RunFrames(app, 1);
    EXPECT_EQ(app.Steps(), 0u);
    EXPECT_EQ(app.GetWorld().Deformables().Bodies().size(), 1u);
    EXPECT_EQ(app.GetWorld().Dynamics().getNumCollisionObjects(), 2); // the ground and the pawn
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    PushKey(window, SDLK_ESCAPE);
    EXPECT_FALSE(app.RunFrame());
}

// The sandbox's panel window fits a 720-pixel window with every default-open panel open (Scene, Traversal,
// Spheres, Stats): its bottom edge is on screen, and what does not fit scrolls, down to the Stats panel's last line.
TEST(InteractiveApp, PanelsFitA720PixelWindow)
{
    BDT_REQUIRE_GL_CONTEXT();
    AppOptions options;
    options.scene = "chairs";
    options.width = cWidth;
    options.height = cHeight;
    options.sample.count = 4;
    App app(options);
    RunFrames(app, 3);
    const ImGuiWindow* panels = ImGui::FindWindowByName("BD-Tree sandbox");
    ASSERT_NE(panels, nullptr);
    EXPECT_LE(panels->Pos.y + panels->Size.y, float(cHeight));
    EXPECT_GE(panels->Pos.y, 0.0f);
    // The panels' content is taller than the window here: a scroll bar reaches the rest.
    const float contentBottom = panels->ContentSize.y + 2.0f * panels->WindowPadding.y;
    EXPECT_GT(contentBottom, panels->Size.y);
    EXPECT_TRUE(panels->ScrollbarY);
    EXPECT_GE(panels->ScrollMax.y, contentBottom - panels->Size.y - 1.0f);
    PushKey(app.Context().Window(), SDLK_ESCAPE);
    EXPECT_FALSE(app.RunFrame());
}

} // namespace
} // namespace bdt::demo
