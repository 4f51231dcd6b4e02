#include "GlContext.h"

#include <SDL.h>
#include <bdt/core/base/Error.h>
#include <epoxy/gl.h>

namespace bdt::demo
{

GlContext::GlContext(const GlContextSettings& inSettings)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        throw Error(std::string("no display for OpenGL (run under xvfb-run for headless use): ") +
                    SDL_GetError());
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_ALLOW_HIGHDPI;
    flags |= inSettings.hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_RESIZABLE;
    mWindow = SDL_CreateWindow(inSettings.title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                               inSettings.width, inSettings.height, flags);
    if (mWindow == nullptr)
    {
        const std::string reason = SDL_GetError();
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        throw Error("cannot open an OpenGL window: " + reason);
    }
    mContext = SDL_GL_CreateContext(mWindow);
    if (mContext == nullptr)
    {
        const std::string reason = SDL_GetError();
        SDL_DestroyWindow(mWindow);
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        throw Error("no OpenGL 3.3 core context: " + reason);
    }
    SDL_GL_MakeCurrent(mWindow, mContext);
    SDL_GL_SetSwapInterval(inSettings.vsync && !inSettings.hidden ? 1 : 0);
}

GlContext::~GlContext()
{
    SDL_GL_DeleteContext(mContext);
    SDL_DestroyWindow(mWindow);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

void GlContext::DrawableSize(int& outWidth, int& outHeight) const
{
    SDL_GL_GetDrawableSize(mWindow, &outWidth, &outHeight);
}

void GlContext::MakeCurrent() const
{
    SDL_GL_MakeCurrent(mWindow, mContext);
}

void GlContext::SwapBuffers() const
{
    SDL_GL_SwapWindow(mWindow);
}

std::string GlContext::Description() const
{
    const auto text = [](GLenum inName)
    {
        const GLubyte* value = glGetString(inName);
        return value != nullptr ? std::string(reinterpret_cast<const char*>(value)) : std::string("?");
    };
    return "OpenGL " + text(GL_VERSION) + ", " + text(GL_RENDERER);
}

} // namespace bdt::demo
