#pragma once

// Offscreen rendering and PNG screenshots (headless mode, tests).

#include "GlObjects.h"

#include <string>
#include <vector>

namespace bdt::demo
{

/// A framebuffer of RGBA8 colour and 24-bit depth renderbuffers, `width` × `height` pixels.
class OffscreenTarget
{
public:
    /// Throws `bdt::Error` when the framebuffer is incomplete.
    OffscreenTarget(int inWidth, int inHeight);
    void Bind() const;
    int Width() const { return mWidth; }
    int Height() const { return mHeight; }

private:
    int mWidth = 0, mHeight = 0;
    GlFramebuffer mFramebuffer;
    GlRenderbuffer mColor, mDepth;
};

/// The RGBA8 pixels of the bound read framebuffer, top row first (as PNG wants).
std::vector<unsigned char> ReadPixels(int inWidth, int inHeight);
/// Writes RGBA8 pixels (top row first) as a PNG. Throws `bdt::Error` naming the file if it cannot be written.
void WritePng(const std::string& inPath, int inWidth, int inHeight,
              const std::vector<unsigned char>& inPixels);

} // namespace bdt::demo
