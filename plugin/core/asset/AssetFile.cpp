#include "core/base/Fnv1a.h"

#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/base/Error.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

// Layout (docs/ASSET_FORMAT.md): a 56-byte header, then the payload sections in a fixed order. Every value is
// written byte by byte in little-endian order, so the file is the same on every host and no struct padding
// or alignment ever reaches the disk.

namespace bdt
{

namespace
{

constexpr std::array<std::uint8_t, 8> cMagic = {'B', 'D', 'T', 'R', 'E', 'E', 0, 1};
constexpr std::size_t cHeaderBytes = 56;
constexpr std::uint32_t cFlagNormalBasis = 1u << 0;
constexpr std::uint32_t cFlagModes = 1u << 1;
constexpr std::uint32_t cFlagAnimation = 1u << 2;
constexpr std::uint32_t cKnownFlags = cFlagNormalBasis | cFlagModes | cFlagAnimation;
constexpr std::size_t cNodeBytes = 16;
constexpr std::size_t cModeBytes = 8;

/// Appends little-endian values to a byte vector.
class ByteWriter
{
public:
    explicit ByteWriter(std::vector<std::uint8_t>& ioBytes) : mBytes(ioBytes) {}

    void U16(std::uint16_t inValue) { Unsigned(inValue, 2); }
    void U32(std::uint32_t inValue) { Unsigned(inValue, 4); }
    void U64(std::uint64_t inValue) { Unsigned(inValue, 8); }
    void F32(float inValue) { U32(std::bit_cast<std::uint32_t>(inValue)); }
    void Bytes(std::span<const std::uint8_t> inBytes)
    {
        // resize + memcpy rather than insert: GCC 12 reports a false -Wstringop-overflow on the latter.
        const std::size_t start = mBytes.size();
        mBytes.resize(start + inBytes.size());
        if (!inBytes.empty())
            std::memcpy(mBytes.data() + start, inBytes.data(), inBytes.size());
    }
    void Floats(std::span<const float> inValues)
    {
        for (float value : inValues)
            F32(value);
    }

private:
    void Unsigned(std::uint64_t inValue, int inByteCount)
    {
        for (int k = 0; k < inByteCount; ++k)
            mBytes.push_back(static_cast<std::uint8_t>(inValue >> (8 * k)));
    }

    std::vector<std::uint8_t>& mBytes;
};

/// Reads little-endian values from a byte span; every read is bounds checked and throws on truncation.
class ByteReader
{
public:
    explicit ByteReader(std::span<const std::uint8_t> inBytes) : mBytes(inBytes) {}

    std::uint16_t U16() { return static_cast<std::uint16_t>(Unsigned(2)); }
    std::uint32_t U32() { return static_cast<std::uint32_t>(Unsigned(4)); }
    std::uint64_t U64() { return Unsigned(8); }
    float F32() { return std::bit_cast<float>(U32()); }
    /// `inCount` floats; the caller has checked that they fit, so the allocation is bounded by the input.
    std::vector<float> Floats(std::size_t inCount)
    {
        Need(inCount, 4);
        std::vector<float> values(inCount);
        for (float& value : values)
            value = F32();
        return values;
    }
    std::size_t Remaining() const { return mBytes.size() - mPosition; }

private:
    void Need(std::size_t inCount, std::size_t inSize = 1) const
    {
        if (inCount > Remaining() / inSize)
            throw Error("asset is truncated");
    }
    std::uint64_t Unsigned(int inByteCount)
    {
        Need(std::size_t(inByteCount));
        std::uint64_t value = 0;
        for (int k = 0; k < inByteCount; ++k)
            value |= std::uint64_t(mBytes[mPosition + k]) << (8 * k);
        mPosition += std::size_t(inByteCount);
        return value;
    }

    std::span<const std::uint8_t> mBytes;
    std::size_t mPosition = 0;
};

/// The fixed-size header fields.
struct Header
{
    std::uint32_t version = 0;
    std::uint32_t flags = 0;
    std::uint64_t vertexCount = 0;
    std::uint64_t triangleCount = 0;
    std::uint32_t modeCount = 0;
    std::uint32_t nodeCount = 0;
    std::uint64_t payloadBytes = 0;
    std::uint64_t checksum = 0;
};

/// outProduct = inA * inB; false (and outProduct untouched) when it overflows 64 bits.
bool CheckedMul(std::uint64_t inA, std::uint64_t inB, std::uint64_t& outProduct)
{
    if (inA != 0 && inB > std::numeric_limits<std::uint64_t>::max() / inA)
        return false;
    outProduct = inA * inB;
    return true;
}

/// Payload length implied by the header's sizes; false when it does not fit in 64 bits.
bool ExpectedPayloadBytes(const Header& inHeader, std::uint64_t& outBytes)
{
    const std::uint64_t n = inHeader.vertexCount;
    const std::uint64_t t = inHeader.triangleCount;
    const std::uint64_t m = inHeader.modeCount;
    std::uint64_t basis = 0;
    std::uint64_t rows = 0;
    std::uint64_t nodes = 0;
    // n and t are at most 2^32 (checked before), so 12n, 12t and 4t cannot overflow.
    if (!CheckedMul(12 * n, m, basis) || !CheckedMul(inHeader.nodeCount, 16 * (m + 2), rows) ||
        !CheckedMul(inHeader.nodeCount, cNodeBytes, nodes))
        return false;
    const std::uint64_t normal = (inHeader.flags & cFlagNormalBasis) ? basis : 0;
    const std::uint64_t modes = (inHeader.flags & cFlagModes) ? cModeBytes * m : 0;
    const std::uint64_t parts[] = {12 * n, 12 * t, basis, normal, modes, 4 * t, nodes, rows};
    // The animation section (flags bit 2) is variable: a u32 frame count F, then F·M floats. Its length is
    // what the payload holds beyond the fixed sections; it must be 4 + 4·F·M for the F it states, which the
    // reader checks when it reads F. Here: at least the count, and a whole number of frames.
    std::uint64_t total = 0;
    for (std::uint64_t part : parts)
    {
        if (part > std::numeric_limits<std::uint64_t>::max() - total)
            return false;
        total += part;
    }
    if (inHeader.flags & cFlagAnimation)
    {
        if (m == 0 || inHeader.payloadBytes < total + 4 || (inHeader.payloadBytes - total - 4) % (4 * m) != 0)
            return false;
        total = inHeader.payloadBytes;
    }
    outBytes = total;
    return true;
}

Header ReadHeader(std::span<const std::uint8_t> inBytes)
{
    if (inBytes.size() < cHeaderBytes)
        throw Error("asset is truncated (" + std::to_string(inBytes.size()) + " bytes, the header alone is " +
                    std::to_string(cHeaderBytes) + ")");
    if (std::memcmp(inBytes.data(), cMagic.data(), cMagic.size()) != 0)
        throw Error("not a .bdt asset (bad magic)");
    ByteReader reader(inBytes.subspan(cMagic.size(), cHeaderBytes - cMagic.size()));
    Header header;
    header.version = reader.U32();
    header.flags = reader.U32();
    header.vertexCount = reader.U64();
    header.triangleCount = reader.U64();
    header.modeCount = reader.U32();
    header.nodeCount = reader.U32();
    header.payloadBytes = reader.U64();
    header.checksum = reader.U64();
    return header;
}

/// Every check that needs only the header and the input length, before anything is allocated.
void ValidateHeader(const Header& inHeader, std::size_t inInputBytes)
{
    if (inHeader.version != cAssetVersion)
        throw Error("unsupported asset version " + std::to_string(inHeader.version) + " (this build reads " +
                    std::to_string(cAssetVersion) + ")");
    if ((inHeader.flags & ~cKnownFlags) != 0)
        throw Error("asset has unknown flags " + std::to_string(inHeader.flags));
    const std::uint64_t available = inInputBytes - cHeaderBytes;
    if (inHeader.payloadBytes > available)
        throw Error("asset is truncated (payload of " + std::to_string(inHeader.payloadBytes) + " bytes, " +
                    std::to_string(available) + " present)");
    if (inHeader.payloadBytes < available)
        throw Error("asset has " + std::to_string(available - inHeader.payloadBytes) +
                    " unexpected bytes after the payload");
    constexpr std::uint64_t maxIndexed = std::uint64_t(std::numeric_limits<std::uint32_t>::max()) + 1;
    std::uint64_t expected = 0;
    if (inHeader.vertexCount > maxIndexed || inHeader.triangleCount > maxIndexed ||
        !ExpectedPayloadBytes(inHeader, expected) || expected != inHeader.payloadBytes)
        throw Error("asset sizes (" + std::to_string(inHeader.vertexCount) + " vertices, " +
                    std::to_string(inHeader.triangleCount) + " triangles, " +
                    std::to_string(inHeader.modeCount) + " modes, " + std::to_string(inHeader.nodeCount) +
                    " nodes) do not match its payload length " + std::to_string(inHeader.payloadBytes));
}

ModelData ReadModelData(const Header& inHeader, ByteReader& ioReader)
{
    const std::size_t n = inHeader.vertexCount;
    const std::size_t t = inHeader.triangleCount;
    const std::size_t m = inHeader.modeCount;
    ModelData data;
    data.modeCount = inHeader.modeCount;
    data.positions.resize(n);
    for (Vec3f& p : data.positions)
        for (int axis = 0; axis < 3; ++axis)
            p[axis] = ioReader.F32();
    data.triangles.resize(t);
    for (Triangle& triangle : data.triangles)
        for (std::uint32_t& index : triangle)
            index = ioReader.U32();
    data.basis = ioReader.Floats(3 * n * m);
    if (inHeader.flags & cFlagNormalBasis)
        data.normalBasis = ioReader.Floats(3 * n * m);
    if (inHeader.flags & cFlagModes)
    {
        data.modes.resize(m);
        for (ModeInfo& mode : data.modes)
        {
            mode.frequency = ioReader.F32();
            mode.damping = ioReader.F32();
        }
    }
    return data;
}

std::vector<BDTreeNode> ReadNodes(std::size_t inCount, ByteReader& ioReader)
{
    std::vector<BDTreeNode> nodes(inCount);
    for (BDTreeNode& node : nodes)
    {
        node.firstChild = ioReader.U32();
        node.firstTriangle = ioReader.U32();
        node.triangleCount = ioReader.U32();
        node.level = ioReader.U16();
        node.reserved = ioReader.U16();
    }
    return nodes;
}

} // namespace

std::vector<std::uint8_t> SerializeAsset(const BDTree& inTree)
{
    const ModelData& data = inTree.GetModel().Data();
    std::vector<std::uint8_t> payload;
    ByteWriter body(payload);
    for (const Vec3f& p : data.positions)
        body.Floats(std::span<const float>(p.data(), 3));
    for (const Triangle& triangle : data.triangles)
        for (std::uint32_t index : triangle)
            body.U32(index);
    body.Floats(data.basis);
    body.Floats(data.normalBasis);
    for (const ModeInfo& mode : data.modes)
    {
        body.F32(mode.frequency);
        body.F32(mode.damping);
    }
    for (std::uint32_t index : inTree.TriangleOrder())
        body.U32(index);
    for (const BDTreeNode& node : inTree.Nodes())
    {
        body.U32(node.firstChild);
        body.U32(node.firstTriangle);
        body.U32(node.triangleCount);
        body.U16(node.level);
        body.U16(node.reserved);
    }
    body.Floats(inTree.Rows());
    if (!data.animation.empty())
    {
        body.U32(std::uint32_t(data.animation.size() / data.modeCount));
        body.Floats(data.animation);
    }

    std::uint32_t flags = 0;
    if (!data.normalBasis.empty())
        flags |= cFlagNormalBasis;
    if (!data.modes.empty())
        flags |= cFlagModes;
    if (!data.animation.empty())
        flags |= cFlagAnimation;
    std::vector<std::uint8_t> bytes;
    bytes.reserve(cHeaderBytes + payload.size());
    ByteWriter out(bytes);
    out.Bytes(cMagic);
    out.U32(cAssetVersion);
    out.U32(flags);
    out.U64(data.positions.size());
    out.U64(data.triangles.size());
    out.U32(data.modeCount);
    out.U32(inTree.NodeCount());
    out.U64(payload.size());
    out.U64(Fnv1a64::Of(payload));
    out.Bytes(payload);
    return bytes;
}

BDTree DeserializeAsset(std::span<const std::uint8_t> inBytes)
{
    const Header header = ReadHeader(inBytes);
    ValidateHeader(header, inBytes.size());
    const std::span<const std::uint8_t> payload = inBytes.subspan(cHeaderBytes);
    if (Fnv1a64::Of(payload) != header.checksum)
        throw Error("asset is corrupt (checksum mismatch)");

    ByteReader reader(payload);
    ModelData data = ReadModelData(header, reader);
    std::vector<std::uint32_t> order(header.triangleCount);
    for (std::uint32_t& index : order)
        index = reader.U32();
    std::vector<BDTreeNode> nodes = ReadNodes(header.nodeCount, reader);
    const std::vector<float> rows = reader.Floats(std::size_t(header.nodeCount) * 4 * (header.modeCount + 2));
    if (header.flags & cFlagAnimation)
    {
        const std::uint64_t frames = reader.U32();
        if (frames == 0 || frames * 4 * header.modeCount != reader.Remaining())
            throw Error("asset's animation track says " + std::to_string(frames) + " frames of " +
                        std::to_string(header.modeCount) + " modes, its payload holds " +
                        std::to_string(reader.Remaining()) + " bytes");
        data.animation = reader.Floats(std::size_t(frames) * header.modeCount);
    }
    if (reader.Remaining() != 0)
        throw Error("asset has unread payload bytes");

    std::shared_ptr<const Model> model;
    try
    {
        model = std::make_shared<const Model>(Model::Create(std::move(data)));
    }
    catch (const Error& error)
    {
        throw Error(std::string("asset holds an invalid model: ") + error.what());
    }
    try
    {
        return BDTree::FromParts(std::move(model), std::move(nodes), rows, std::move(order));
    }
    catch (const Error& error)
    {
        throw Error(std::string("asset holds an inconsistent tree: ") + error.what());
    }
}

void SaveAsset(const BDTree& inTree, const std::string& inPath)
{
    const std::vector<std::uint8_t> bytes = SerializeAsset(inTree);
    std::FILE* file = std::fopen(inPath.c_str(), "wb");
    if (file == nullptr)
        throw Error(std::string("cannot open for writing (") + std::strerror(errno) + ")");
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
    const std::string reason = written ? "" : std::strerror(errno);
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed)
    {
        const std::string why = written ? std::strerror(errno) : reason;
        std::remove(inPath.c_str());
        throw Error("cannot write (" + why + ")");
    }
}

std::shared_ptr<const BDTree> LoadAsset(const std::string& inPath)
{
    // A regular file, read up to its size: a device or a pipe (/dev/zero) could be read until memory ran out.
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(inPath, error);
    if (error)
        throw Error("cannot open (" + error.message() + ")");
    if (!std::filesystem::is_regular_file(status))
        throw Error("not a regular file (a directory, device or pipe)");
    const std::uintmax_t size = std::filesystem::file_size(inPath, error);
    if (error)
        throw Error("cannot read its size (" + error.message() + ")");
    std::FILE* file = std::fopen(inPath.c_str(), "rb");
    if (file == nullptr)
        throw Error(std::string("cannot open (") + std::strerror(errno) + ")");
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    const std::size_t count = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), file);
    const bool failed = std::ferror(file) != 0 || count != bytes.size();
    const bool grew = !failed && std::fgetc(file) != EOF; // written to while being read
    std::fclose(file);
    if (failed)
        throw Error("cannot read (I/O error, or the file shrank while being read)");
    if (grew)
        throw Error("cannot read (the file grew while being read)");
    return std::make_shared<const BDTree>(DeserializeAsset(bytes));
}

} // namespace bdt
