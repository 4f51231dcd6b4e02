#pragma once

// A linked GLSL program built from the embedded shaders/ files.

#include "GlObjects.h"

#include <string>
#include <vector>

namespace bdt::demo
{

/// A GLSL program: a vertex shader, an optional fragment shader, and the vertex outputs captured by transform
/// feedback (interleaved), if any.
class ShaderProgram
{
public:
    ShaderProgram() = default;

    /// Compiles and links shaders/`inVertex` and shaders/`inFragment` (empty: none, for transform feedback),
    /// capturing `inCaptured` outputs. Throws `bdt::Error` naming the file with the driver's log on a missing
    /// file or a compile or link error. Needs a current context.
    static ShaderProgram Build(const std::string& inVertex, const std::string& inFragment,
                               const std::vector<std::string>& inCaptured = {});

    GLuint Id() const { return mProgram.Get(); }
    void Use() const { glUseProgram(mProgram.Get()); }
    /// The location of uniform `inName` (-1 when the linker removed it; setting -1 is a no-op in GL).
    GLint Uniform(const char* inName) const { return glGetUniformLocation(mProgram.Get(), inName); }

private:
    GlProgram mProgram;
};

} // namespace bdt::demo
