module github.com/gofio/gofio

go 1.25.0

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794
	github.com/cilium/ebpf v0.22.0
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/perf v0.0.0-20230113213139-801c7ef9e5c5
	golang.org/x/sys v0.43.0
	gopkg.in/ini.v1 v1.68.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
