#include "GlTestContext.h"

#include <bdt/core/base/Error.h>
#include <cstdlib>

namespace bdt::demo::test
{

GlContext* SharedGlContext(std::string& outReason)
{
    static std::unique_ptr<GlContext> context;
    static std::string reason;
    static bool tried = false;
    if (!tried)
    {
        tried = true;
        try
        {
            GlContextSettings settings;
            settings.width = 64;
            settings.height = 64;
            settings.hidden = true;
            context = std::make_unique<GlContext>(settings);
        }
        catch (const Error& error)
        {
            reason = error.what();
        }
    }
    outReason = reason;
    if (context)
        context->MakeCurrent(); // another test may have made its own context current since
    return context.get();
}

bool GlRequired()
{
    const char* value = std::getenv("BDT_REQUIRE_GL");
    return value != nullptr && std::string(value) != "0" && std::string(value) != "";
}

} // namespace bdt::demo::test
