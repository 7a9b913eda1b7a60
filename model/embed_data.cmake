# Writes the text file IN as the C++ string constant gds::model::data::NAME
# (with NAME_size) to OUT.
file(READ ${IN} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE ${OUT} "#include <cstddef>\nnamespace gds::model::data {\nextern const char ${NAME}[];\nextern const std::size_t ${NAME}_size;\nconst char ${NAME}[] = {${bytes} 0};\nconst std::size_t ${NAME}_size = sizeof(${NAME}) - 1;\n}\n")
