#pragma once

// The GLSL of shaders/, embedded in the binary at build time (cmake/EmbedShaders.cmake).

#include <string_view>

namespace bdt::demo
{

/// The text of the shader file `inName` of shaders/ (e.g. "deform.vert"); empty if there is none.
std::string_view ShaderSource(std::string_view inName);

} // namespace bdt::demo
