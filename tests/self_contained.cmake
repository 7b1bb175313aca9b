# SPDX-License-Identifier: MIT
# The repository stands alone: no tracked file (text or binary, fuzz seeds included) names a
# path of the machine it was written on, or files kept beside the repository. Exceptions are
# listed, with their reasons, in tests/abi/check_self_contained.py.
add_test(NAME repo-self-contained
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/abi/check_self_contained.py
                 ${PROJECT_SOURCE_DIR})
add_test(NAME repo-self-contained-selftest
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/abi/check_self_contained.py
                 --self-test)
set_tests_properties(repo-self-contained repo-self-contained-selftest PROPERTIES LABELS abi)
