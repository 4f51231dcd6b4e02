#include "Screenshot.h"

#include <bdt/core/base/Error.h>
#include <cstring>
#include <stb_image_write.h>

namespace bdt::demo
{

OffscreenTarget::OffscreenTarget(int inWidth, int inHeight) : mWidth(inWidth), mHeight(inHeight)
{
    GLuint names[2] = {0, 0};
    glGenRenderbuffers(2, names);
    mColor = GlRenderbuffer(names[0]);
    mDepth = GlRenderbuffer(names[1]);
    glBindRenderbuffer(GL_RENDERBUFFER, mColor.Get());
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, inWidth, inHeight);
    glBindRenderbuffer(GL_RENDERBUFFER, mDepth.Get());
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, inWidth, inHeight);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    GLuint framebuffer = 0;
    glGenFramebuffers(1, &framebuffer);
    mFramebuffer = GlFramebuffer(framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, mColor.Get());
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, mDepth.Get());
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        throw Error("offscreen framebuffer " + std::to_string(inWidth) + "x" + std::to_string(inHeight) +
                    " incomplete (status " + std::to_string(status) + ")");
}

void OffscreenTarget::Bind() const
{
    glBindFramebuffer(GL_FRAMEBUFFER, mFramebuffer.Get());
    glViewport(0, 0, mWidth, mHeight);
}

std::vector<unsigned char> ReadPixels(int inWidth, int inHeight)
{
    std::vector<unsigned char> pixels(std::size_t(inWidth) * std::size_t(inHeight) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, inWidth, inHeight, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // GL's rows start at the bottom.
    const std::size_t row = std::size_t(inWidth) * 4;
    std::vector<unsigned char> swap(row);
    for (int y = 0; y < inHeight / 2; ++y)
    {
        unsigned char* top = pixels.data() + std::size_t(y) * row;
        unsigned char* bottom = pixels.data() + std::size_t(inHeight - 1 - y) * row;
        std::memcpy(swap.data(), top, row);
        std::memcpy(top, bottom, row);
        std::memcpy(bottom, swap.data(), row);
    }
    return pixels;
}

void WritePng(const std::string& inPath, int inWidth, int inHeight,
              const std::vector<unsigned char>& inPixels)
{
    if (stbi_write_png(inPath.c_str(), inWidth, inHeight, 4, inPixels.data(), inWidth * 4) == 0)
        throw Error(inPath + ": cannot write the PNG screenshot");
}

} // namespace bdt::demo
