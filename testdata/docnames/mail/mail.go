// Package mail has no Header and no Gone: comments in packages that
// import net/mail mean net/mail's.
package mail
