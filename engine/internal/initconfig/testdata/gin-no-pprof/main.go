// gin's Run() without an address, which listens on $PORT; no pprof.
package main

import "github.com/gin-gonic/gin"

func main() {
	r := gin.Default()
	r.GET("/albums", func(c *gin.Context) {})
	r.GET("/albums/:id", func(c *gin.Context) {})
	r.POST("/albums", func(c *gin.Context) {})
	_ = r.Run()
}
