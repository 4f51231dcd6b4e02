#include "GlObjects.h"

#include <algorithm>

namespace bdt::demo
{

void GlBufferTexture::Upload(const void* inData, GLsizeiptr inBytes, bool inStream)
{
    if (buffer.Get() == 0)
        buffer = NewBuffer();
    if (texture.Get() == 0)
        texture = NewTexture();
    glBindBuffer(GL_TEXTURE_BUFFER, buffer.Get());
    // A texture buffer of zero bytes is not allowed: keep at least one texel.
    const GLsizeiptr bytes = std::max<GLsizeiptr>(inBytes, 16);
    if (bytes > capacity)
    {
        capacity = std::max(bytes, capacity + capacity / 2);
        glBufferData(GL_TEXTURE_BUFFER, capacity, nullptr, inStream ? GL_STREAM_DRAW : GL_STATIC_DRAW);
        glBindTexture(GL_TEXTURE_BUFFER, texture.Get());
        glTexBuffer(GL_TEXTURE_BUFFER, format, buffer.Get());
    }
    if (inBytes > 0)
        glBufferSubData(GL_TEXTURE_BUFFER, 0, inBytes, inData);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

void GlBufferTexture::Bind(GLuint inUnit) const
{
    glActiveTexture(GL_TEXTURE0 + inUnit);
    glBindTexture(GL_TEXTURE_BUFFER, texture.Get());
}

} // namespace bdt::demo
