// Moved to <bdt/core/contacts/ProxyPatches.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/contacts/ProxyPatches.h>
