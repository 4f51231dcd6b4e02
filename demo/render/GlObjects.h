#pragma once

// Owning handles of OpenGL objects: each deletes its object when destroyed, moves, never copies. They need
// the context they were made in to be current when destroyed.

#include <epoxy/gl.h>
#include <utility>

namespace bdt::demo
{

/// An OpenGL object name with the function that deletes it (glDeleteBuffers and the like).
template <void (*Delete)(GLuint)> class GlHandle
{
public:
    GlHandle() = default;
    explicit GlHandle(GLuint inName) : mName(inName) {}
    ~GlHandle() { Reset(); }
    GlHandle(GlHandle&& ioOther) noexcept : mName(std::exchange(ioOther.mName, 0u)) {}
    GlHandle& operator=(GlHandle&& ioOther) noexcept
    {
        if (this != &ioOther)
        {
            Reset();
            mName = std::exchange(ioOther.mName, 0u);
        }
        return *this;
    }
    GlHandle(const GlHandle&) = delete;
    GlHandle& operator=(const GlHandle&) = delete;

    GLuint Get() const { return mName; }
    void Reset()
    {
        if (mName != 0)
            Delete(mName);
        mName = 0;
    }

private:
    GLuint mName = 0;
};

namespace detail
{
inline void DeleteBuffer(GLuint inName)
{
    glDeleteBuffers(1, &inName);
}
inline void DeleteVertexArray(GLuint inName)
{
    glDeleteVertexArrays(1, &inName);
}
inline void DeleteTexture(GLuint inName)
{
    glDeleteTextures(1, &inName);
}
inline void DeleteFramebuffer(GLuint inName)
{
    glDeleteFramebuffers(1, &inName);
}
inline void DeleteRenderbuffer(GLuint inName)
{
    glDeleteRenderbuffers(1, &inName);
}
inline void DeleteProgram(GLuint inName)
{
    glDeleteProgram(inName);
}
} // namespace detail

using GlBuffer = GlHandle<detail::DeleteBuffer>;
using GlVertexArray = GlHandle<detail::DeleteVertexArray>;
using GlTexture = GlHandle<detail::DeleteTexture>;
using GlFramebuffer = GlHandle<detail::DeleteFramebuffer>;
using GlRenderbuffer = GlHandle<detail::DeleteRenderbuffer>;
using GlProgram = GlHandle<detail::DeleteProgram>;

/// A new buffer, vertex array or texture name.
inline GlBuffer NewBuffer()
{
    GLuint name = 0;
    glGenBuffers(1, &name);
    return GlBuffer(name);
}
inline GlVertexArray NewVertexArray()
{
    GLuint name = 0;
    glGenVertexArrays(1, &name);
    return GlVertexArray(name);
}
inline GlTexture NewTexture()
{
    GLuint name = 0;
    glGenTextures(1, &name);
    return GlTexture(name);
}

/// A buffer texture (GL_TEXTURE_BUFFER) over its own buffer, for data a shader reads with texelFetch.
struct GlBufferTexture
{
    GlBuffer buffer;
    GlTexture texture;
    GLenum format = GL_R32F;
    GLsizeiptr capacity = 0; ///< Bytes allocated in `buffer`.

    /// Replaces the contents with `inBytes` bytes (growing the buffer when needed; GL_STREAM_DRAW when
    /// `inStream`, for data sent every frame).
    void Upload(const void* inData, GLsizeiptr inBytes, bool inStream);
    /// Binds the texture to texture unit `inUnit`.
    void Bind(GLuint inUnit) const;
};

} // namespace bdt::demo
