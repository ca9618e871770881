module libdag.dev/dag

go 1.19
