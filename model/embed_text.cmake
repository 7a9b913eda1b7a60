# Writes IN as a C++ string constant (gds::model::kOpMetadataText) to OUT.
file(READ ${IN} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE ${OUT} "#include <cstddef>\nnamespace gds::model {\nextern const char kOpMetadataText[];\nextern const std::size_t kOpMetadataSize;\nconst char kOpMetadataText[] = {${bytes} 0};\nconst std::size_t kOpMetadataSize = sizeof(kOpMetadataText) - 1;\n}\n")
