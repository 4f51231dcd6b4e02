#pragma once

#include <bdt/core/bounds/BDTree.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bdt
{

/// Version of the `.bdt` format this library writes; it reads this version only.
inline constexpr std::uint32_t cAssetVersion = 1;

/// Serialises a tree and its model into the `.bdt` format: little-endian binary, a header (magic "BDTREE\0\1",
/// version, sizes, payload length, FNV-1a 64 checksum of the payload) then the payload sections (positions,
/// triangles, basis, normal basis, modes, triangle order, nodes, rows). Documented in docs/ASSET_FORMAT.md.
std::vector<std::uint8_t> SerializeAsset(const BDTree& inTree);

/// Parses bytes written by `SerializeAsset`. Never reads out of bounds: a truncated, corrupt, mismatched or
/// inconsistent input throws `bdt::Error` with a one-line message (bad magic, unsupported version, sizes that
/// do not match the payload, checksum mismatch, invalid model or tree).
BDTree DeserializeAsset(std::span<const std::uint8_t> inBytes);

/// Writes `inTree` to `inPath`. Throws `bdt::Error` if the file cannot be written.
void SaveAsset(const BDTree& inTree, const std::string& inPath);

/// Reads a `.bdt` file. Throws `bdt::Error` (message without the file name) if it cannot be read or is invalid.
std::shared_ptr<const BDTree> LoadAsset(const std::string& inPath);

} // namespace bdt
