#include "ShaderProgram.h"

#include "ShaderSources.h"

#include <bdt/core/base/Error.h>

namespace bdt::demo
{

namespace
{

std::string InfoLog(GLuint inObject, bool inProgram)
{
    GLint length = 0;
    if (inProgram)
        glGetProgramiv(inObject, GL_INFO_LOG_LENGTH, &length);
    else
        glGetShaderiv(inObject, GL_INFO_LOG_LENGTH, &length);
    std::string log(std::size_t(std::max(length, 1)), '\0');
    if (inProgram)
        glGetProgramInfoLog(inObject, length, nullptr, log.data());
    else
        glGetShaderInfoLog(inObject, length, nullptr, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
        log.pop_back();
    // One line: the driver's log may hold several.
    for (char& c : log)
        if (c == '\n')
            c = ' ';
    return log;
}

GLuint Compile(GLenum inStage, const std::string& inName)
{
    const std::string_view source = ShaderSource(inName);
    if (source.empty())
        throw Error("shaders/" + inName + ": no such shader embedded");
    const GLuint shader = glCreateShader(inStage);
    const GLchar* text = source.data();
    const GLint length = GLint(source.size());
    glShaderSource(shader, 1, &text, &length);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE)
    {
        const std::string log = InfoLog(shader, false);
        glDeleteShader(shader);
        throw Error("shaders/" + inName + ": compile error: " + log);
    }
    return shader;
}

} // namespace

ShaderProgram ShaderProgram::Build(const std::string& inVertex, const std::string& inFragment,
                                   const std::vector<std::string>& inCaptured)
{
    ShaderProgram result;
    result.mProgram = GlProgram(glCreateProgram());
    const GLuint program = result.mProgram.Get();
    const GLuint vertex = Compile(GL_VERTEX_SHADER, inVertex);
    glAttachShader(program, vertex);
    GLuint fragment = 0;
    if (!inFragment.empty())
    {
        try
        {
            fragment = Compile(GL_FRAGMENT_SHADER, inFragment);
        }
        catch (...)
        {
            glDeleteShader(vertex);
            throw;
        }
        glAttachShader(program, fragment);
    }
    if (!inCaptured.empty())
    {
        std::vector<const GLchar*> names;
        for (const std::string& name : inCaptured)
            names.push_back(name.c_str());
        glTransformFeedbackVaryings(program, GLsizei(names.size()), names.data(), GL_INTERLEAVED_ATTRIBS);
    }
    glLinkProgram(program);
    glDeleteShader(vertex);
    if (fragment != 0)
        glDeleteShader(fragment);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE)
        throw Error("shaders/" + inVertex + (inFragment.empty() ? "" : " + " + inFragment) +
                    ": link error: " + InfoLog(program, true));
    return result;
}

} // namespace bdt::demo
