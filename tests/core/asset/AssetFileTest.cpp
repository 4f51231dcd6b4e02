#include "support/TestModels.h"

#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/asset/AssetFile.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

// Header field offsets, from docs/ASSET_FORMAT.md (deliberately not shared with the implementation).
constexpr std::size_t cHeaderBytes = 56;
constexpr std::size_t cVersionAt = 8;
constexpr std::size_t cFlagsAt = 12;
constexpr std::size_t cVertexCountAt = 16;
constexpr std::size_t cTriangleCountAt = 24;
constexpr std::size_t cModeCountAt = 32;
constexpr std::size_t cNodeCountAt = 36;
constexpr std::size_t cPayloadBytesAt = 40;
constexpr std::size_t cChecksumAt = 48;

using Bytes = std::vector<std::uint8_t>;

std::uint64_t GetLe(const Bytes& inBytes, std::size_t inAt, int inSize)
{
    std::uint64_t value = 0;
    for (int k = 0; k < inSize; ++k)
        value |= std::uint64_t(inBytes[inAt + k]) << (8 * k);
    return value;
}

void PutLe(Bytes& ioBytes, std::size_t inAt, std::uint64_t inValue, int inSize)
{
    for (int k = 0; k < inSize; ++k)
        ioBytes[inAt + k] = static_cast<std::uint8_t>(inValue >> (8 * k));
}

// Recomputes the payload checksum (FNV-1a 64) after a test has edited the payload.
void Reseal(Bytes& ioBytes)
{
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (std::size_t k = cHeaderBytes; k < ioBytes.size(); ++k)
        hash = (hash ^ ioBytes[k]) * 0x100000001b3ull;
    PutLe(ioBytes, cChecksumAt, hash, 8);
}

// Offsets of the payload sections, computed from the header as the format document describes.
struct Sections
{
    std::size_t triangles, modes, order, nodes, rows;
};

Sections SectionsOf(const Bytes& inBytes)
{
    const std::size_t n = GetLe(inBytes, cVertexCountAt, 8);
    const std::size_t t = GetLe(inBytes, cTriangleCountAt, 8);
    const std::size_t m = GetLe(inBytes, cModeCountAt, 4);
    const std::size_t nodes = GetLe(inBytes, cNodeCountAt, 4);
    const std::uint32_t flags = static_cast<std::uint32_t>(GetLe(inBytes, cFlagsAt, 4));
    Sections s{};
    s.triangles = cHeaderBytes + 12 * n;
    s.modes = s.triangles + 12 * t + 12 * n * m * ((flags & 1) ? 2 : 1);
    s.order = s.modes + ((flags & 2) ? 8 * m : 0);
    s.nodes = s.order + 4 * t;
    s.rows = s.nodes + 16 * nodes;
    EXPECT_EQ(s.rows + 16 * nodes * (m + 2), inBytes.size()) << "sections do not add up to the file";
    return s;
}

// A model with every optional array: normal basis and per-mode frequency and damping.
std::shared_ptr<const BDTree> RichTree(std::uint32_t inTriangles, std::uint32_t inModes, std::uint32_t inFrames = 0)
{
    ShapeMesh mesh = MakeShape(EShape::Torus, inTriangles);
    ModelData data;
    data.modeCount = inModes;
    data.basis = MakeSmoothBasis(mesh.positions, inModes);
    data.normalBasis = MakeNormalBasis(mesh.positions, mesh.triangles, data.basis, inModes);
    for (std::uint32_t j = 0; j < inModes; ++j)
        data.modes.push_back({10.0f * float(j + 1) + 0.1f, 0.01f * float(j)});
    for (std::uint32_t k = 0; k < inFrames * inModes; ++k)
        data.animation.push_back(0.25f * float(k % 7) - 0.5f);
    data.positions = std::move(mesh.positions);
    data.triangles = std::move(mesh.triangles);
    return std::make_shared<const BDTree>(BDTree::Build(Model::Create(std::move(data))));
}

// The smallest assets, for the exhaustive truncation and corruption loops.
std::vector<Bytes> SmallAssets()
{
    return {SerializeAsset(*test::ShapeTree("box", 12, 2)), SerializeAsset(*RichTree(24, 2)),
            SerializeAsset(*RichTree(24, 2, 3))};
}

template <typename T> void ExpectSameBits(std::span<const T> inA, std::span<const T> inB, const char* inWhat)
{
    ASSERT_EQ(inA.size(), inB.size()) << inWhat;
    EXPECT_TRUE(inA.empty() || std::memcmp(inA.data(), inB.data(), inA.size_bytes()) == 0) << inWhat;
}

void ExpectSameTree(const BDTree& inA, const BDTree& inB)
{
    const ModelData& a = inA.GetModel().Data();
    const ModelData& b = inB.GetModel().Data();
    EXPECT_EQ(a.modeCount, b.modeCount);
    ASSERT_EQ(a.positions.size(), b.positions.size());
    for (std::size_t i = 0; i < a.positions.size(); ++i)
        for (int k = 0; k < 3; ++k)
            EXPECT_EQ(std::bit_cast<std::uint32_t>(a.positions[i][k]),
                      std::bit_cast<std::uint32_t>(b.positions[i][k]));
    EXPECT_EQ(a.triangles, b.triangles);
    ExpectSameBits<float>(a.basis, b.basis, "basis");
    ExpectSameBits<float>(a.normalBasis, b.normalBasis, "normal basis");
    ExpectSameBits<float>(a.animation, b.animation, "animation track");
    ASSERT_EQ(a.modes.size(), b.modes.size());
    for (std::size_t j = 0; j < a.modes.size(); ++j)
    {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(a.modes[j].frequency),
                  std::bit_cast<std::uint32_t>(b.modes[j].frequency));
        EXPECT_EQ(std::bit_cast<std::uint32_t>(a.modes[j].damping),
                  std::bit_cast<std::uint32_t>(b.modes[j].damping));
    }
    ASSERT_EQ(inA.NodeCount(), inB.NodeCount());
    ExpectSameBits<BDTreeNode>(inA.Nodes(), inB.Nodes(), "nodes");
    ExpectSameBits<float>(inA.Rows(), inB.Rows(), "rows");
    ExpectSameBits<std::uint32_t>(inA.TriangleOrder(), inB.TriangleOrder(), "triangle order");
    ASSERT_EQ(inA.LevelCount(), inB.LevelCount());
    for (std::uint32_t l = 0; l < inA.LevelCount(); ++l)
        EXPECT_EQ(inA.LevelEnd(l), inB.LevelEnd(l));
    EXPECT_EQ(inA.GetModel().DegenerateTriangleCount(), inB.GetModel().DegenerateTriangleCount());
}

// The message of the bdt::Error that `inBytes` raises (empty, and a test failure, when none is raised).
std::string ErrorOf(const Bytes& inBytes)
{
    try
    {
        (void)DeserializeAsset(inBytes);
    }
    catch (const Error& error)
    {
        const std::string message = error.what();
        EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
        EXPECT_FALSE(message.empty());
        return message;
    }
    ADD_FAILURE() << "no bdt::Error";
    return {};
}

TEST(AssetFile, RoundTripPreservesEverythingBitExactly)
{
    const std::shared_ptr<const BDTree> trees[] = {RichTree(600, 5), test::ShapeTree("chair", 2000, 6),
                                                   test::ShapeTree("sphere", 200, 0)};
    for (const auto& tree : trees)
    {
        const Bytes bytes = SerializeAsset(*tree);
        const BDTree loaded = DeserializeAsset(bytes);
        ExpectSameTree(*tree, loaded);
        EXPECT_EQ(SerializeAsset(loaded), bytes) << "serialising the loaded tree gives the same bytes";
    }
}

TEST(AssetFile, AnimationTrackIsTheLastSectionBehindFlagBit2)
{
    const auto tree = RichTree(300, 3, 5);
    const Bytes bytes = SerializeAsset(*tree);
    EXPECT_EQ(GetLe(bytes, cFlagsAt, 4), 7u) << "normal basis, modes and animation present";
    const BDTree loaded = DeserializeAsset(bytes);
    ExpectSameTree(*tree, loaded);
    EXPECT_EQ(loaded.GetModel().AnimationFrameCount(), 5u);
    // The section: u32 F, then F·M floats, at the end of the payload.
    const std::size_t at = bytes.size() - 4 * 5 * 3 - 4;
    EXPECT_EQ(GetLe(bytes, at, 4), 5u);
    EXPECT_EQ(GetLe(bytes, at + 4, 4), std::bit_cast<std::uint32_t>(tree->GetModel().AnimationTrack()[0]));
    // A frame count that disagrees with the section's length.
    Bytes wrong = bytes;
    PutLe(wrong, at, 4, 4);
    Reseal(wrong);
    EXPECT_NE(ErrorOf(wrong).find("animation track says 4 frames"), std::string::npos) << ErrorOf(wrong);
    // Without the flag, the same bytes are a payload of unexpected length.
    Bytes unflagged = bytes;
    PutLe(unflagged, cFlagsAt, 3, 4);
    EXPECT_THROW((void)DeserializeAsset(unflagged), Error);
}

TEST(AssetFile, HeaderHoldsTheDocumentedFields)
{
    const auto tree = RichTree(300, 3);
    const Bytes bytes = SerializeAsset(*tree);
    EXPECT_EQ(std::memcmp(bytes.data(), "BDTREE\0\1", 8), 0);
    EXPECT_EQ(GetLe(bytes, cVersionAt, 4), cAssetVersion);
    EXPECT_EQ(GetLe(bytes, cFlagsAt, 4), 3u) << "normal basis and modes present";
    EXPECT_EQ(GetLe(bytes, cVertexCountAt, 8), tree->GetModel().VertexCount());
    EXPECT_EQ(GetLe(bytes, cTriangleCountAt, 8), tree->GetModel().TriangleCount());
    EXPECT_EQ(GetLe(bytes, cModeCountAt, 4), 3u);
    EXPECT_EQ(GetLe(bytes, cNodeCountAt, 4), tree->NodeCount());
    EXPECT_EQ(GetLe(bytes, cPayloadBytesAt, 8), bytes.size() - cHeaderBytes);
    // The first node record: firstChild 1, the whole triangle range, level 0.
    const Sections s = SectionsOf(bytes);
    EXPECT_EQ(GetLe(bytes, s.nodes, 4), 1u);
    EXPECT_EQ(GetLe(bytes, s.nodes + 8, 4), tree->GetModel().TriangleCount());
    EXPECT_EQ(GetLe(bytes, s.rows + 12, 4), std::bit_cast<std::uint32_t>(tree->Row(0)[3])) << "root radius";
}

TEST(AssetFile, SaveAndLoadRoundTripThroughAFile)
{
    const auto tree = test::ShapeTree("pawn", 800, 4);
    const std::string path = std::string(BDT_TEST_TMP) + "/asset-file-test.bdt";
    SaveAsset(*tree, path);
    const std::shared_ptr<const BDTree> loaded = LoadAsset(path);
    ExpectSameTree(*tree, *loaded);
    std::remove(path.c_str());
}

TEST(AssetFile, EveryTruncationThrows)
{
    for (const Bytes& bytes : SmallAssets())
    {
        for (std::size_t length = 0; length < bytes.size(); ++length)
            EXPECT_THROW((void)DeserializeAsset(std::span(bytes.data(), length)), Error)
                << "prefix of " << length;
        Bytes longer = bytes;
        longer.push_back(0);
        EXPECT_NE(ErrorOf(longer).find("after the payload"), std::string::npos);
    }
}

TEST(AssetFile, EverySingleByteCorruptionThrows)
{
    // FNV-1a detects every single-byte change of the payload; header bytes are checked field by field.
    for (const Bytes& bytes : SmallAssets())
    {
        for (std::size_t at = 0; at < bytes.size(); ++at)
        {
            for (std::uint8_t mask : {0x01, 0x80, 0xff})
            {
                Bytes corrupt = bytes;
                corrupt[at] ^= mask;
                EXPECT_THROW((void)DeserializeAsset(corrupt), Error) << "byte " << at << " ^ " << int(mask);
            }
        }
        Bytes corrupt = bytes;
        corrupt[cHeaderBytes + 5] ^= 0x10;
        EXPECT_NE(ErrorOf(corrupt).find("checksum"), std::string::npos);
    }
}

TEST(AssetFile, BadMagicAndVersionThrow)
{
    const Bytes bytes = SerializeAsset(*test::ShapeTree("box", 12, 2));
    Bytes magic = bytes;
    magic[3] = 'X';
    EXPECT_NE(ErrorOf(magic).find("magic"), std::string::npos);
    for (std::uint32_t version : {0u, cAssetVersion + 1, 0xffffffffu})
    {
        Bytes other = bytes;
        PutLe(other, cVersionAt, version, 4);
        EXPECT_NE(ErrorOf(other).find("version"), std::string::npos) << version;
    }
    Bytes flags = bytes;
    PutLe(flags, cFlagsAt, 1u << 7, 4);
    EXPECT_NE(ErrorOf(flags).find("flags"), std::string::npos);
}

TEST(AssetFile, HugeHeaderSizesThrowWithoutAllocating)
{
    // Had the reader allocated what these headers claim (terabytes), it would throw std::bad_alloc (or be
    // killed), not bdt::Error: the sizes must be checked against the payload length first.
    const Bytes bytes = SerializeAsset(*test::ShapeTree("box", 12, 2));
    const std::uint64_t huge[] = {std::uint64_t(1) << 40, std::uint64_t(1) << 32, std::uint64_t(1) << 33,
                                  std::numeric_limits<std::uint64_t>::max()};
    for (std::uint64_t size : huge)
    {
        for (std::size_t field : {cVertexCountAt, cTriangleCountAt})
        {
            Bytes claimed = bytes;
            PutLe(claimed, field, size, 8);
            EXPECT_NE(ErrorOf(claimed).find("do not match"), std::string::npos) << size;
            // A payload length that agrees with the claim only says the file is short.
            PutLe(claimed, cPayloadBytesAt, size, 8);
            EXPECT_NE(ErrorOf(claimed).find("truncated"), std::string::npos) << size;
        }
    }
    for (std::size_t field : {cModeCountAt, cNodeCountAt})
    {
        Bytes claimed = bytes;
        PutLe(claimed, field, 0xffffffffu, 4);
        EXPECT_NE(ErrorOf(claimed).find("do not match"), std::string::npos);
    }
}

TEST(AssetFile, InconsistentTreeThrows)
{
    const Bytes bytes = SerializeAsset(*test::ShapeTree("box", 12, 2));
    const Sections s = SectionsOf(bytes);
    const std::uint32_t nodes = static_cast<std::uint32_t>(GetLe(bytes, cNodeCountAt, 4));
    // The root's first child past the end of the node array, on the last node (its pair would be past the
    // end), at the top of the index range, and 0 (the root becomes a leaf and its subtree unreachable).
    for (std::uint32_t child : {nodes + 7, nodes - 1, 0xffffffffu, 0u})
    {
        Bytes edited = bytes;
        PutLe(edited, s.nodes, child, 4);
        Reseal(edited);
        const std::string message = ErrorOf(edited);
        EXPECT_NE(message.find("inconsistent tree"), std::string::npos) << message;
    }
    // A node's triangle range past the triangles.
    Bytes range = bytes;
    PutLe(range, s.nodes + 16 + 8, 1000, 4);
    Reseal(range);
    EXPECT_NE(ErrorOf(range).find("inconsistent tree"), std::string::npos);
    // A triangle order that is not a permutation.
    Bytes order = bytes;
    PutLe(order, s.order, GetLe(order, s.order + 4, 4), 4);
    Reseal(order);
    EXPECT_NE(ErrorOf(order).find("inconsistent tree"), std::string::npos);
    // A NaN radius in the root's row.
    Bytes row = bytes;
    PutLe(row, s.rows + 12, std::bit_cast<std::uint32_t>(std::numeric_limits<float>::quiet_NaN()), 4);
    Reseal(row);
    EXPECT_NE(ErrorOf(row).find("inconsistent tree"), std::string::npos);
}

TEST(AssetFile, InvalidModelThrows)
{
    const Bytes bytes = SerializeAsset(*test::ShapeTree("box", 12, 2));
    const Sections s = SectionsOf(bytes);
    Bytes index = bytes;
    PutLe(index, s.triangles + 4, 1'000'000, 4);
    Reseal(index);
    EXPECT_NE(ErrorOf(index).find("invalid model"), std::string::npos);
    Bytes position = bytes;
    PutLe(position, cHeaderBytes, std::bit_cast<std::uint32_t>(std::numeric_limits<float>::infinity()), 4);
    Reseal(position);
    EXPECT_NE(ErrorOf(position).find("invalid model"), std::string::npos);
}

TEST(AssetFile, MissingOrUnwritableFileThrows)
{
    const std::string folder = std::string(BDT_TEST_TMP);
    EXPECT_THROW((void)LoadAsset(folder + "/no-such-asset.bdt"), Error);
    EXPECT_THROW((void)LoadAsset(folder), Error) << "a directory";
    // A device that never ends is refused at once, not read until memory runs out.
    try
    {
        (void)LoadAsset("/dev/zero");
        ADD_FAILURE() << "/dev/zero was read";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find("not a regular file"), std::string::npos) << error.what();
    }
    EXPECT_THROW(SaveAsset(*test::ShapeTree("box", 12, 1), folder + "/no-such-folder/out.bdt"), Error);
}

} // namespace
} // namespace bdt
