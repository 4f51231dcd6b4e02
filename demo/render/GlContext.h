#pragma once

// The demo's window and its OpenGL 3.3 core context (SDL2), visible or hidden (headless rendering, tests).

#include <memory>
#include <string>

struct SDL_Window;

namespace bdt::demo
{

/// How to open the window.
struct GlContextSettings
{
    int width = 1280;    ///< Pixels.
    int height = 720;    ///< Pixels.
    bool hidden = false; ///< No visible window: render offscreen (headless mode, tests).
    bool vsync = true;
    std::string title = "bdt-demo";
};

/// An SDL2 window with a current OpenGL 3.3 core context; closes both when destroyed. Several may exist
/// (SDL's video subsystem is reference-counted); the last one made or made current is the current one.
class GlContext
{
public:
    /// Opens the window and makes its context current. Throws `bdt::Error` with SDL's reason when there is no
    /// display or no OpenGL 3.3 core (e.g. "no display: run under xvfb-run").
    explicit GlContext(const GlContextSettings& inSettings);
    ~GlContext();
    GlContext(const GlContext&) = delete;
    GlContext& operator=(const GlContext&) = delete;

    SDL_Window* Window() const { return mWindow; }
    void* NativeContext() const { return mContext; }
    /// The drawable size in pixels.
    void DrawableSize(int& outWidth, int& outHeight) const;
    void SwapBuffers() const;
    /// Makes this context current on the calling thread.
    void MakeCurrent() const;
    /// "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits)".
    std::string Description() const;

private:
    SDL_Window* mWindow = nullptr;
    void* mContext = nullptr;
};

} // namespace bdt::demo
